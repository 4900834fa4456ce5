// NVML loaded at run time: the real library where there is one (on a CPU-only machine its absence
// is tested for real), a path that does not exist, and fake libraries (fake_nvml.cpp) for the
// loader, the device lookup and the readings.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "drivers/monitor/nvml_api.hpp"
#include "drivers/monitor/nvml_source.hpp"
#include "drivers/monitor/start_monitor.hpp"

namespace gemmtune::monitor {
namespace {

// The fake's own counters, through a handle of our own (which also keeps it loaded).
struct FakeHooks {
  explicit FakeHooks(const char* path) : handle(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
  ~FakeHooks() {
    if (handle != nullptr) dlclose(handle);
  }
  int call(const char* name) const {
    auto* f = reinterpret_cast<int (*)()>(dlsym(handle, name));
    return f != nullptr ? f() : -1;
  }
  void* handle;
};

TEST(Nvml, TheSystemLibraryLoadsOrSaysWhy) {
  std::string why;
  auto library = nvml::NvmlLibrary::open(nvml::kDefaultLibrary, why);
  if (library) {
    GTEST_SKIP() << "NVML is installed here; its absence cannot be tested";
  }
  EXPECT_NE(why.find("libnvidia-ml.so.1"), std::string::npos) << why;
  // start_nvml_monitor turns the same failure into one note, and no monitor.
  const MonitorStart start = start_nvml_monitor("", 0, MonitorOptions{});
  EXPECT_FALSE(start.monitor);
  EXPECT_EQ(start.note.rfind("GPU monitor off: ", 0), 0u) << start.note;
}

TEST(Nvml, ANonexistentLibraryIsOffWithANote) {
  MonitorOptions options;
  options.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  const MonitorStart start = start_nvml_monitor("0000:3b:00.0", 0, options);
  EXPECT_FALSE(start.monitor);
  EXPECT_EQ(start.note.rfind("GPU monitor off: /nonexistent/libnvidia-ml.so.1", 0), 0u)
      << start.note;
}

TEST(Nvml, AMissingRequiredFunctionIsOff) {
  std::string why;
  EXPECT_FALSE(nvml::NvmlLibrary::open(FAKE_NVML_MISSING_PATH, why));
  EXPECT_NE(why.find("missing function nvmlDeviceGetHandleByIndex_v2"), std::string::npos) << why;
}

TEST(Nvml, AFailedInitIsOffWithNvmlsReason) {
  std::string why;
  EXPECT_FALSE(nvml::NvmlLibrary::open(FAKE_NVML_NO_DRIVER_PATH, why));
  EXPECT_EQ(why, "nvmlInit_v2 failed: Driver Not Loaded");
}

TEST(Nvml, InitAndShutdownPair) {
  const FakeHooks hooks(FAKE_NVML_PATH);
  ASSERT_NE(hooks.handle, nullptr) << dlerror();
  std::string why;
  {
    auto library = nvml::NvmlLibrary::open(FAKE_NVML_PATH, why);
    ASSERT_TRUE(library) << why;
    EXPECT_EQ(hooks.call("fake_nvml_live_inits"), 1);
    EXPECT_EQ(library->error_string(6), "Not Found");
  }
  EXPECT_EQ(hooks.call("fake_nvml_live_inits"), 0);
}

TEST(NvmlSource, FindsTheDeviceByPciBusIdAndReadsIt) {
  std::string why;
  auto library = nvml::NvmlLibrary::open(FAKE_NVML_PATH, why);
  ASSERT_TRUE(library) << why;
  // CUDA's form of the bus id (4-digit domain, lower case); NVML reads it as numbers.
  auto source = NvmlSource::open(library, "0000:3b:00.0", 7, why);
  ASSERT_TRUE(source) << why;
  const DeviceLimits limits = source->limits();
  EXPECT_EQ(limits.device, "NVML device 0000:3b:00.0");
  EXPECT_EQ(*limits.max_sm_clock_mhz, 1980u);
  EXPECT_EQ(*limits.max_mem_clock_mhz, 2619u);
  EXPECT_DOUBLE_EQ(*limits.power_limit_w, 700.0);

  const auto s = source->sample();
  ASSERT_TRUE(s);
  EXPECT_EQ(*s->sm_clock_mhz, 1755u);
  EXPECT_EQ(*s->mem_clock_mhz, 2619u);
  EXPECT_DOUBLE_EQ(*s->power_w, 512.5);  // mW to W
  EXPECT_EQ(*s->temperature_c, 61);
  EXPECT_EQ(*s->memory_used_bytes, 3ull << 30);
  EXPECT_EQ(*s->memory_total_bytes, 80ull << 30);
  EXPECT_FALSE(s->gpu_util_percent);  // "not supported" by the fake
  EXPECT_FALSE(s->mem_util_percent);
  EXPECT_EQ(*s->reasons, 0x4u);
  ASSERT_TRUE(s->energy_mj);
  const auto later = source->sample();
  ASSERT_TRUE(later);
  EXPECT_EQ(*later->energy_mj - *s->energy_mj, 2000u);  // the counter, read afresh each time
}

TEST(NvmlSource, FallsBackToTheIndexAndSaysSo) {
  std::string why;
  auto library = nvml::NvmlLibrary::open(FAKE_NVML_PATH, why);
  ASSERT_TRUE(library) << why;
  auto source = NvmlSource::open(library, "0000:99:00.0", 0, why);
  ASSERT_TRUE(source) << why;
  EXPECT_EQ(source->limits().device,
            "NVML device index 0, as PCI bus id 0000:99:00.0 was not found: Not Found");
  EXPECT_FALSE(NvmlSource::open(library, "0000:99:00.0", 3, why));
  EXPECT_EQ(
      why, "no NVML device for PCI bus id 0000:99:00.0 (Not Found) nor index 3 (Invalid Argument)");
  EXPECT_FALSE(NvmlSource::open(library, "", 3, why));
  EXPECT_EQ(why, "no NVML device 3: Invalid Argument");
}

TEST(NvmlSource, OlderDriversThrottleReasonsAndNoBusIdLookup) {
  std::string why;
  auto library = nvml::NvmlLibrary::open(FAKE_NVML_OLD_PATH, why);
  ASSERT_TRUE(library) << why;
  auto source = NvmlSource::open(library, "0000:3b:00.0", 0, why);
  ASSERT_TRUE(source) << why;
  EXPECT_EQ(source->limits().device,
            "NVML device index 0, as PCI bus id 0000:3b:00.0 was not found: no "
            "nvmlDeviceGetHandleByPciBusId_v2");
  EXPECT_FALSE(source->limits().power_limit_w);  // the function is missing
  const auto s = source->sample();
  ASSERT_TRUE(s);
  EXPECT_EQ(*s->reasons, 0x20u);  // from nvmlDeviceGetCurrentClocksThrottleReasons
  EXPECT_FALSE(s->energy_mj);     // no nvmlDeviceGetTotalEnergyConsumption
}

TEST(StartNvmlMonitor, RunsOnTheFakeAndSummarizes) {
  const FakeHooks hooks(FAKE_NVML_PATH);
  MonitorOptions options;
  options.nvml_library = FAKE_NVML_PATH;
  options.interval_ms = 5;
  {
    MonitorStart start = start_nvml_monitor("0000:3b:00.0", 0, options);
    ASSERT_TRUE(start.monitor) << start.note;
    EXPECT_EQ(start.note, "GPU monitor: NVML device 0000:3b:00.0, every 5 ms");
    for (int i = 0; i < 1000 && start.monitor->samples().size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    start.monitor->stop();
    const MonitorSummary s = start.monitor->summary();
    EXPECT_GE(s.samples, 2);
    EXPECT_DOUBLE_EQ(*s.power_mean_w, 512.5);
    EXPECT_EQ(*s.sm_clock_device_max_mhz, 1980u);
    EXPECT_TRUE(s.throttled);  // SwPowerCap in every sample
    const std::string text = format_monitor_summary(s);
    EXPECT_NE(text.find("throttled during the run: yes (SwPowerCap)"), std::string::npos) << text;
  }
  EXPECT_EQ(hooks.call("fake_nvml_live_inits"), 0);  // the monitor's end shut NVML down
}

TEST(StartNvmlMonitor, IntervalZeroIsOffSilently) {
  MonitorOptions options;
  options.nvml_library = FAKE_NVML_PATH;
  options.interval_ms = 0;
  const MonitorStart start = start_nvml_monitor("0000:3b:00.0", 0, options);
  EXPECT_FALSE(start.monitor);
  EXPECT_EQ(start.note, "");
}

}  // namespace
}  // namespace gemmtune::monitor
