#include "drivers/monitor/throttle_reasons.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gemmtune::monitor {

const std::vector<ThrottleReason>& throttle_reasons() {
  static const std::vector<ThrottleReason> reasons{
      {0x1, "GpuIdle", "nothing running", ReasonKind::Benign},
      {0x2, "ApplicationsClocksSetting", "clocks set by the user", ReasonKind::Benign},
      {0x4, "SwPowerCap", "power limit", ReasonKind::Slowdown},
      {0x8, "HwSlowdown", "hardware slowdown (heat or power brake)", ReasonKind::Slowdown},
      {0x10, "SyncBoost", "sync boost group", ReasonKind::Benign},
      {0x20, "SwThermalSlowdown", "temperature limit", ReasonKind::Slowdown},
      {0x40, "HwThermalSlowdown", "hardware thermal slowdown", ReasonKind::Slowdown},
      {0x80, "HwPowerBrakeSlowdown", "external power brake", ReasonKind::Slowdown},
      {0x100, "DisplayClockSetting", "display clocks", ReasonKind::Benign},
  };
  return reasons;
}

ThrottleReason reason_of_bit(std::uint64_t bit) {
  const auto& all = throttle_reasons();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const ThrottleReason& r) { return r.bit == bit; });
  if (it != all.end()) return *it;
  return {bit, fmt::format("Unknown{:#x}", bit), "not known to this gemmtune", ReasonKind::Benign};
}

std::string reason_names(std::uint64_t mask) {
  std::string out;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    if ((mask & bit) == 0) continue;
    if (!out.empty()) out += ',';
    out += reason_of_bit(bit).name;
  }
  return out;
}

std::uint64_t slowdown_bits(std::uint64_t mask) {
  std::uint64_t out = 0;
  for (const auto& r : throttle_reasons()) {
    if (r.kind == ReasonKind::Slowdown) out |= r.bit;
  }
  return mask & out;
}

}  // namespace gemmtune::monitor
