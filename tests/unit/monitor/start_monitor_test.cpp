// start_monitor_for: which backends get a monitor, and which device it watches.
#include "drivers/monitor/start_monitor.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gemmtune::monitor {
namespace {

// Only properties(); the monitor needs nothing else of a backend.
class PropertiesOnly final : public Backend {
 public:
  explicit PropertiesOnly(DeviceProperties p) : p_(std::move(p)) {}
  const DeviceProperties& properties() const override { return p_; }
  Environment versions() const override { return {}; }
  void* stream() const override { return nullptr; }
  std::unique_ptr<Buffer> allocate(std::size_t) override { throw std::logic_error("unused"); }
  void fill_random(Buffer&, DType, std::int64_t, std::uint64_t) override {}
  void fill_bytes(Buffer&, unsigned char) override {}
  void copy(Buffer&, const Buffer&, std::size_t) override {}
  std::vector<double> read_as_double(const Buffer&, DType, std::int64_t) override { return {}; }
  void synchronize() override {}
  void flush_cache() override {}
  std::unique_ptr<IterationTimer> make_timer(TimingMode) override { return nullptr; }

 private:
  DeviceProperties p_;
};

DeviceProperties cuda_device(std::string bus_id, int ordinal) {
  DeviceProperties p;
  p.backend = "cuda";
  p.ordinal = ordinal;
  p.name = "NVIDIA H100 80GB HBM3";
  p.pci_bus_id = std::move(bus_id);
  return p;
}

MonitorOptions fake_nvml() {
  MonitorOptions o;
  o.nvml_library = FAKE_NVML_PATH;
  o.interval_ms = 50;
  return o;
}

TEST(StartMonitorFor, TheCpuBackendHasNoMonitorAndNothingToSay) {
  DeviceProperties cpu;
  cpu.backend = "cpu";
  const MonitorStart start = start_monitor_for(PropertiesOnly(cpu), fake_nvml());
  EXPECT_FALSE(start.monitor);
  EXPECT_EQ(start.note, "");
}

TEST(StartMonitorFor, ACudaDeviceIsFoundByItsBusId) {
  const MonitorStart start =
      start_monitor_for(PropertiesOnly(cuda_device("0000:3b:00.0", 5)), fake_nvml());
  ASSERT_TRUE(start.monitor) << start.note;
  EXPECT_EQ(start.monitor->limits().device, "NVML device 0000:3b:00.0");
}

TEST(StartMonitorFor, WithoutABusIdByItsOrdinal) {
  const MonitorStart start = start_monitor_for(PropertiesOnly(cuda_device("", 0)), fake_nvml());
  ASSERT_TRUE(start.monitor) << start.note;
  EXPECT_EQ(start.monitor->limits().device, "NVML device index 0");
  const MonitorStart none = start_monitor_for(PropertiesOnly(cuda_device("", 4)), fake_nvml());
  EXPECT_FALSE(none.monitor);
  EXPECT_EQ(none.note, "GPU monitor off: no NVML device 4: Invalid Argument");
}

TEST(StartMonitorFor, NoNvmlMeansOffWithOneNote) {
  MonitorOptions options = fake_nvml();
  options.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  const MonitorStart start =
      start_monitor_for(PropertiesOnly(cuda_device("0000:3b:00.0", 0)), options);
  EXPECT_FALSE(start.monitor);
  EXPECT_EQ(start.note.rfind("GPU monitor off: ", 0), 0u);
}

}  // namespace
}  // namespace gemmtune::monitor
