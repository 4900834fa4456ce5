// summarize() and its formats, from samples made by hand: the figures are checked against values
// computed here by hand.
#include "drivers/monitor/monitor_summary.hpp"

#include <gtest/gtest.h>

namespace gemmtune::monitor {
namespace {

constexpr std::uint64_t GiB = 1ull << 30;

MonitorSample busy(double t, unsigned sm_mhz, double watts, std::uint64_t used_gib,
                   std::uint64_t reasons = 0, bool measuring = false) {
  MonitorSample s;
  s.t_s = t;
  s.measuring = measuring;
  s.sm_clock_mhz = sm_mhz;
  s.mem_clock_mhz = 2619;
  s.power_w = watts;
  s.temperature_c = 50 + static_cast<int>(t * 10 + 0.5);  // 0.3 s: 53 °C
  s.memory_used_bytes = used_gib * GiB;
  s.memory_total_bytes = 80 * GiB;
  s.gpu_util_percent = 90;
  s.mem_util_percent = 40;
  s.reasons = reasons;
  return s;
}

DeviceLimits h100() {
  DeviceLimits d;
  d.device = "NVML device 0000:3b:00.0";
  d.max_sm_clock_mhz = 1980;
  d.power_limit_w = 700;
  return d;
}

TEST(MonitorSummary, WholeRunWhenNoWindowWasMarked) {
  const std::vector<MonitorSample> samples{busy(0.0, 1980, 400, 2), busy(0.1, 1980, 600, 5),
                                           busy(0.2, 1965, 500, 4)};
  const MonitorSummary s = summarize(samples, h100());
  EXPECT_EQ(s.samples, 3);
  EXPECT_FALSE(s.scope_is_measurements);
  EXPECT_EQ(s.scope_samples, 3);
  EXPECT_DOUBLE_EQ(s.duration_s, 0.2);
  EXPECT_EQ(*s.memory_used_max_bytes, 5 * GiB);
  EXPECT_EQ(*s.memory_total_bytes, 80 * GiB);
  EXPECT_DOUBLE_EQ(*s.power_mean_w, 500.0);  // (400 + 600 + 500) / 3
  EXPECT_DOUBLE_EQ(*s.power_max_w, 600.0);
  EXPECT_DOUBLE_EQ(*s.power_limit_w, 700.0);
  EXPECT_EQ(*s.sm_clock_min_mhz, 1965u);
  EXPECT_EQ(*s.sm_clock_max_mhz, 1980u);
  EXPECT_DOUBLE_EQ(*s.sm_clock_mean_mhz, 1975.0);
  EXPECT_EQ(*s.sm_clock_device_max_mhz, 1980u);
  EXPECT_EQ(*s.temperature_max_c, 52);
  EXPECT_DOUBLE_EQ(*s.gpu_util_mean_percent, 90.0);
  EXPECT_EQ(s.clock_drop_samples, 0);  // 1965 >= 95% of 1980
  EXPECT_TRUE(s.reasons.empty());
  EXPECT_EQ(s.reason_samples, 3);
  EXPECT_FALSE(s.throttled);
}

TEST(MonitorSummary, MeasurementWindowsAreTheScopeButMemoryIsTheWholeRun) {
  const std::vector<MonitorSample> samples{
      busy(0.0, 1980, 100, 9),  // before: more memory, not in the figures
      busy(0.1, 1800, 650, 3, 0x4, true), busy(0.2, 1700, 690, 3, 0x4, true),
      busy(0.3, 1200, 120, 1, 0x1),  // between measurements, idle
  };
  const MonitorSummary s = summarize(samples, h100());
  EXPECT_TRUE(s.scope_is_measurements);
  EXPECT_EQ(s.measuring_samples, 2);
  EXPECT_EQ(s.scope_samples, 2);
  EXPECT_EQ(*s.memory_used_max_bytes, 9 * GiB);
  EXPECT_DOUBLE_EQ(*s.power_mean_w, 670.0);
  EXPECT_DOUBLE_EQ(*s.power_max_w, 690.0);
  EXPECT_EQ(*s.sm_clock_max_mhz, 1800u);
  EXPECT_EQ(*s.sm_clock_min_mhz, 1700u);
  // The drop reference is the highest clock of the scope (1800), not the idle sample's or the
  // device's: 1700 >= 0.95 * 1800 = 1710? No: 1700 < 1710, so one drop.
  EXPECT_EQ(s.clock_drop_samples, 1);
  EXPECT_EQ(*s.clock_drop_lowest_mhz, 1700u);
  ASSERT_EQ(s.reasons.size(), 1u);
  EXPECT_EQ(s.reasons[0].reason.name, "SwPowerCap");
  EXPECT_EQ(s.reasons[0].samples, 2);
  EXPECT_TRUE(s.throttled);
}

TEST(MonitorSummary, IdleSamplesAreNotClockDrops) {
  const std::vector<MonitorSample> samples{busy(0.0, 1980, 500, 1), busy(0.1, 345, 90, 1, 0x1),
                                           busy(0.2, 1980, 500, 1)};
  const MonitorSummary s = summarize(samples, h100());
  EXPECT_EQ(s.busy_samples, 2);
  EXPECT_EQ(s.clock_drop_samples, 0);
  EXPECT_EQ(*s.sm_clock_min_mhz, 1980u);
  ASSERT_EQ(s.reasons.size(), 1u);
  EXPECT_EQ(s.reasons[0].reason.name, "GpuIdle");
  EXPECT_EQ(s.reasons[0].samples, 1);
  EXPECT_FALSE(s.throttled);                                      // idle is benign
  EXPECT_DOUBLE_EQ(*s.power_mean_w, (500.0 + 90.0 + 500.0) / 3);  // power counts every sample
}

TEST(MonitorSummary, ClockDropsAloneMeanThrottled) {
  const std::vector<MonitorSample> samples{busy(0.0, 1980, 500, 1), busy(0.1, 1500, 500, 1),
                                           busy(0.2, 1400, 500, 1)};
  const MonitorSummary s = summarize(samples, h100());
  EXPECT_EQ(s.clock_drop_samples, 2);
  EXPECT_EQ(*s.clock_drop_lowest_mhz, 1400u);
  EXPECT_TRUE(s.throttled);
  SummaryOptions loose;
  loose.drop_fraction = 0.7;  // 1400 >= 0.7 * 1980 = 1386
  EXPECT_EQ(summarize(samples, h100(), loose).clock_drop_samples, 0);
}

TEST(MonitorSummary, EveryReasonCountedAndDecoded) {
  const std::vector<MonitorSample> samples{busy(0.0, 1980, 500, 1, 0x2 | 0x10),
                                           busy(0.1, 1980, 500, 1, 0x40 | 0x2),
                                           busy(0.2, 1980, 500, 1, 0x200)};
  const MonitorSummary s = summarize(samples, h100());
  ASSERT_EQ(s.reasons.size(), 4u);
  EXPECT_EQ(s.reasons[0].reason.name, "ApplicationsClocksSetting");
  EXPECT_EQ(s.reasons[0].samples, 2);
  EXPECT_EQ(s.reasons[1].reason.name, "SyncBoost");
  EXPECT_EQ(s.reasons[2].reason.name, "HwThermalSlowdown");
  EXPECT_EQ(s.reasons[2].reason.kind, ReasonKind::Slowdown);
  EXPECT_EQ(s.reasons[3].reason.name, "Unknown0x200");
  EXPECT_TRUE(s.throttled);  // HwThermalSlowdown
}

TEST(MonitorSummary, MissingFieldsStayMissing) {
  MonitorSample only_power;
  only_power.power_w = 300;
  MonitorSample only_clock;
  only_clock.t_s = 1.0;
  only_clock.sm_clock_mhz = 1500;
  const MonitorSummary s = summarize({only_power, only_clock}, DeviceLimits{"fake", {}, {}, {}});
  EXPECT_DOUBLE_EQ(*s.power_mean_w, 300.0);  // the mean of the samples that have it
  EXPECT_FALSE(s.memory_used_max_bytes);
  EXPECT_FALSE(s.memory_total_bytes);
  EXPECT_FALSE(s.temperature_max_c);
  EXPECT_FALSE(s.gpu_util_mean_percent);
  EXPECT_FALSE(s.mem_clock_max_mhz);
  EXPECT_FALSE(s.power_limit_w);
  EXPECT_EQ(s.reason_samples, 0);
  EXPECT_EQ(*s.sm_clock_max_mhz, 1500u);
  EXPECT_FALSE(s.throttled);

  const std::string text = format_monitor_summary(s);
  EXPECT_EQ(text.find("memory used"), std::string::npos) << text;
  EXPECT_EQ(text.find("temperature"), std::string::npos) << text;
  EXPECT_EQ(text.find("clock event reasons"), std::string::npos) << text;
  EXPECT_NE(text.find("power: mean 300.0 W, max 300.0 W\n"), std::string::npos) << text;
  const std::string fields = format_monitor_fields(s);
  EXPECT_EQ(fields.find("memory_used_max_bytes"), std::string::npos) << fields;
}

TEST(MonitorSummary, NoSamples) {
  const MonitorSummary s = summarize({}, h100());
  EXPECT_EQ(s.samples, 0);
  EXPECT_FALSE(s.throttled);
  EXPECT_NE(format_monitor_summary(s).find("no samples"), std::string::npos);
}

TEST(MonitorSummary, HumanText) {
  const std::vector<MonitorSample> samples{
      busy(0.0, 1980, 100, 9), busy(0.1, 1800, 650, 3, 0x4, true),
      busy(0.2, 1700, 690, 3, 0x4 | 0x1, true), busy(0.3, 1750, 600, 3, 0x4, true)};
  MonitorSummary s = summarize(samples, h100());
  s.interval_ms = 100;
  const std::string text = format_monitor_summary(s);
  EXPECT_EQ(text.rfind("GPU monitor: NVML device 0000:3b:00.0, every 100 ms: 4 samples over 0.3 s, "
                       "3 during measurements",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("  memory used: max 9.00 GiB of 80.00 GiB"), std::string::npos) << text;
  EXPECT_NE(text.find("  power: mean 646.7 W, max 690.0 W (limit 700 W)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  SM clock: mean 1775 MHz, min 1750 MHz, max 1800 MHz (device max 1980 "
                      "MHz); memory clock 2619 MHz\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("temperature max 53 °C"), std::string::npos) << text;
  EXPECT_NE(text.find("GpuIdle (nothing running, benign) in 1 of 3 (33%)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("SwPowerCap (power limit) in 3 of 3 (100%)"), std::string::npos) << text;
  EXPECT_NE(text.find("  clock drops: none"), std::string::npos) << text;
  EXPECT_NE(text.find("  throttled during measurements: yes (SwPowerCap)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(MonitorSummary, FieldsAndJson) {
  const std::vector<MonitorSample> samples{busy(0.0, 1980, 400, 2, 0x4),
                                           busy(0.5, 1500, 600, 5, 0x4 | 0x1)};
  MonitorSummary s = summarize(samples, h100());
  s.interval_ms = 100;
  const std::string kv = format_monitor_fields(s);
  EXPECT_NE(kv.find("monitor.samples=2\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.scope=run\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.memory_used_max_bytes=5368709120\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.power_mean_w=500.0\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.reasons=GpuIdle:1,SwPowerCap:2\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.slowdown_reasons=SwPowerCap\n"), std::string::npos) << kv;
  EXPECT_NE(kv.find("monitor.throttled=1\n"), std::string::npos) << kv;
  const std::string json = format_monitor_json(s);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
  EXPECT_NE(json.find("\"device\":\"NVML device 0000:3b:00.0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"power_max_w\":600.0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"throttled\":1"), std::string::npos) << json;
  EXPECT_EQ(json.find('\n'), std::string::npos);
  s.device = "a \"quoted\"\\ name";
  EXPECT_NE(format_monitor_json(s).find(R"("device":"a \"quoted\"\\ name")"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune::monitor
