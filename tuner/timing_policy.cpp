#include "tuner/timing_policy.hpp"

namespace gemmtune {

std::string_view to_string(TimingMode mode) {
  return mode == TimingMode::Immediate ? "immediate" : "queued";
}

std::optional<TimingMode> parse_timing_mode(std::string_view text) {
  if (text == "queued") return TimingMode::Queued;
  if (text == "immediate") return TimingMode::Immediate;
  return std::nullopt;
}

}  // namespace gemmtune
