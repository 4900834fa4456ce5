// The clocks event reason bits: NVML's values, names, and which ones are slowdowns.
#include "drivers/monitor/throttle_reasons.hpp"

#include <gtest/gtest.h>

namespace gemmtune::monitor {
namespace {

TEST(ThrottleReasons, BitsAreNvmls) {
  const std::pair<std::uint64_t, const char*> expected[] = {
      {0x1, "GpuIdle"},
      {0x2, "ApplicationsClocksSetting"},
      {0x4, "SwPowerCap"},
      {0x8, "HwSlowdown"},
      {0x10, "SyncBoost"},
      {0x20, "SwThermalSlowdown"},
      {0x40, "HwThermalSlowdown"},
      {0x80, "HwPowerBrakeSlowdown"},
      {0x100, "DisplayClockSetting"},
  };
  ASSERT_EQ(throttle_reasons().size(), std::size(expected));
  for (const auto& [bit, name] : expected) EXPECT_EQ(reason_of_bit(bit).name, name) << bit;
}

TEST(ThrottleReasons, SlowdownsAreThePowerAndHeatOnes) {
  EXPECT_EQ(slowdown_bits(0x1FF), 0x4u | 0x8u | 0x20u | 0x40u | 0x80u);
  EXPECT_EQ(slowdown_bits(0x1 | 0x2 | 0x10 | 0x100), 0u);
}

TEST(ThrottleReasons, NamesInBitOrderUnknownBitsNamed) {
  EXPECT_EQ(reason_names(0), "");
  EXPECT_EQ(reason_names(0x20 | 0x4 | 0x1), "GpuIdle,SwPowerCap,SwThermalSlowdown");
  EXPECT_EQ(reason_names(0x200), "Unknown0x200");
  EXPECT_EQ(reason_of_bit(0x200).kind, ReasonKind::Benign);
}

}  // namespace
}  // namespace gemmtune::monitor
