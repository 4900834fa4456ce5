// The LLM benchmark's device state: which monitor samples fall in a tuning's finalists' phases,
// and their means.
#include "bench/llm/device_state.hpp"

#include <gtest/gtest.h>

namespace gemmtune::bench {
namespace {

monitor::MonitorSample sample(double t_s, unsigned clock, double power, int temperature) {
  monitor::MonitorSample s;
  s.t_s = t_s;
  s.sm_clock_mhz = clock;
  s.power_w = power;
  s.temperature_c = temperature;
  return s;
}

TEST(LlmDeviceState, FinalistsWindowSpansMeasureToTrialFromTheTuningsStart) {
  TuningReport report;
  report.phases = {{"enumerate", 0.1}, {"operands", 0.05}, {"screen", 0.4}, {"check", 0.05},
                   {"measure", 0.2},   {"confirm", 0.03},  {"trial", 0.12}, {"select", 0.0}};
  const auto w = finalists_window(report, 10.0);
  ASSERT_TRUE(w.has_value());
  EXPECT_NEAR(w->first, 10.6, 1e-9);
  EXPECT_NEAR(w->second, 10.95, 1e-9);

  report.phases = {{"enumerate", 0.1}, {"screen", 0.4}};  // Default alone: nothing measured
  EXPECT_FALSE(finalists_window(report, 10.0).has_value());
}

TEST(LlmDeviceState, MeansOverTheSamplesInTheWindowOnly) {
  std::vector<monitor::MonitorSample> samples = {
      sample(0.9, 1980, 300, 40), sample(1.0, 1900, 600, 50), sample(1.1, 1800, 700, 55),
      sample(1.2, 1700, 700, 53), sample(1.3, 1400, 100, 60)};
  samples[2].power_w.reset();  // a field the driver did not give is left out of its mean
  const DeviceState s = device_state(samples, 1.0, 1.2);
  EXPECT_EQ(s.samples, 3);
  EXPECT_NEAR(s.sm_clock_mhz, 1800, 1e-9);
  EXPECT_NEAR(s.power_w, 650, 1e-9);
  EXPECT_EQ(s.max_temperature_c, 55);
  EXPECT_EQ(describe(s), "1800 MHz, 650 W, 55 °C (3 samples)");

  const DeviceState none = device_state(samples, 2.0, 3.0);
  EXPECT_EQ(none.samples, 0);
  EXPECT_EQ(describe(none), "no monitor samples");
}

}  // namespace
}  // namespace gemmtune::bench
