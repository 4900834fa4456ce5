// The sampling thread, with a fake source: it samples, stops, joins, marks measurement windows,
// survives a failing source. Timings are never asserted tightly: the CI machine is shared.
#include "drivers/monitor/gpu_monitor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace gemmtune::monitor {
namespace {

using namespace std::chrono_literals;

// Answers with an increasing SM clock; fails or throws on request.
class FakeSource final : public SampleSource {
 public:
  explicit FakeSource(std::atomic<int>& calls) : calls_(calls) {}
  std::optional<MonitorSample> sample() override {
    const int n = ++calls_;
    if (fail) return std::nullopt;
    if (throw_error) throw std::runtime_error("fake failure");
    MonitorSample s;
    s.sm_clock_mhz = 1000 + static_cast<unsigned>(n);
    s.power_w = 100;
    return s;
  }
  DeviceLimits limits() const override { return {"fake device", 2000, {}, 500}; }

  std::atomic<bool> fail{false};
  std::atomic<bool> throw_error{false};

 private:
  std::atomic<int>& calls_;
};

// Waits (up to a generous limit) until `done` holds.
template <typename F>
bool eventually(F done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return done();
}

TEST(GpuMonitor, SamplesUntilStopped) {
  std::atomic<int> calls{0};
  GpuMonitor monitor(std::make_unique<FakeSource>(calls), 10ms);
  EXPECT_EQ(monitor.limits().device, "fake device");
  EXPECT_EQ(monitor.interval(), 10ms);
  ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= 3; }));
  monitor.stop();
  const auto samples = monitor.samples();
  EXPECT_EQ(static_cast<int>(samples.size()), calls.load());
  for (std::size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GE(samples[i].t_s, samples[i - 1].t_s);
    EXPECT_FALSE(samples[i].measuring);
  }
  // Stopped means stopped.
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(monitor.samples().size(), samples.size());
  monitor.stop();  // idempotent
}

TEST(GpuMonitor, TheFirstSampleComesAtOnceTheNextAfterTheInterval) {
  std::atomic<int> calls{0};
  GpuMonitor monitor(std::make_unique<FakeSource>(calls), 60000ms);
  ASSERT_TRUE(eventually([&] { return calls.load() >= 1; }));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(calls.load(), 1);  // the next one is a minute away
}

TEST(GpuMonitor, AMonitorStoppedAtOnceStillReadsTheDeviceOnce) {
  std::atomic<int> calls{0};
  GpuMonitor monitor(std::make_unique<FakeSource>(calls), 60000ms);
  monitor.stop();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(monitor.samples().size(), 1u);
}

TEST(GpuMonitor, DestructorStopsAndJoinsPromptly) {
  std::atomic<int> calls{0};
  const auto start = std::chrono::steady_clock::now();
  {
    GpuMonitor monitor(std::make_unique<FakeSource>(calls), 60000ms);
    ASSERT_TRUE(eventually([&] { return calls.load() >= 1; }));
  }
  // The thread was woken, not left to sleep out its minute.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  const int after = calls.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(calls.load(), after);
}

TEST(GpuMonitor, MeasurementWindowsMarkTheirSamples) {
  std::atomic<int> calls{0};
  GpuMonitor monitor(std::make_unique<FakeSource>(calls), 5ms);
  ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= 1; }));
  {
    MeasurementWindow window(&monitor);
    const std::size_t before = monitor.samples().size();
    ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= before + 3; }));
  }
  monitor.stop();
  const auto samples = monitor.samples();
  EXPECT_FALSE(samples.front().measuring);
  EXPECT_GE(std::count_if(samples.begin(), samples.end(), [](auto& s) { return s.measuring; }), 2);
  const MonitorSummary summary = monitor.summary();
  EXPECT_TRUE(summary.scope_is_measurements);
  EXPECT_EQ(summary.interval_ms, 5.0);
  EXPECT_EQ(*summary.sm_clock_device_max_mhz, 2000u);
  EXPECT_EQ(*summary.power_limit_w, 500.0);
}

TEST(GpuMonitor, AShortWindowGetsASampleOfItsOwn) {
  std::atomic<int> calls{0};
  GpuMonitor monitor(std::make_unique<FakeSource>(calls), 60000ms);
  ASSERT_TRUE(eventually([&] { return calls.load() >= 1; }));
  { MeasurementWindow window(&monitor); }  // far shorter than the interval
  ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= 2; }));
  const auto samples = monitor.samples();
  EXPECT_FALSE(samples[0].measuring);
  EXPECT_TRUE(samples[1].measuring);
  // Nested windows: one sample when the outer one ends, none for the inner one.
  monitor.begin_measurement();
  monitor.begin_measurement();
  monitor.end_measurement();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(monitor.samples().size(), 2u);
  monitor.end_measurement();
  ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= 3; }));
  monitor.end_measurement();  // unbalanced: ignored
  MeasurementWindow nothing(nullptr);
}

TEST(GpuMonitor, FailingAndThrowingSourcesAreCountedNotFatal) {
  std::atomic<int> calls{0};
  auto source = std::make_unique<FakeSource>(calls);
  FakeSource& fake = *source;
  fake.fail = true;
  GpuMonitor monitor(std::move(source), 2ms);
  ASSERT_TRUE(eventually([&] { return monitor.failed_samples() >= 2; }));
  fake.fail = false;
  fake.throw_error = true;
  const int seen = calls.load();
  ASSERT_TRUE(eventually([&] { return calls.load() >= seen + 2; }));
  fake.throw_error = false;
  ASSERT_TRUE(eventually([&] { return monitor.samples().size() >= 1; }));
  monitor.stop();
  EXPECT_EQ(monitor.samples().size() + monitor.failed_samples(),
            static_cast<std::size_t>(calls.load()));
  EXPECT_EQ(monitor.summary().failed_samples, monitor.failed_samples());
}

TEST(GpuMonitor, RefusesNoSourceAndNoInterval) {
  std::atomic<int> calls{0};
  EXPECT_THROW(GpuMonitor(nullptr, 10ms), std::exception);
  EXPECT_THROW(GpuMonitor(std::make_unique<FakeSource>(calls), 0ms), std::exception);
}

}  // namespace
}  // namespace gemmtune::monitor
