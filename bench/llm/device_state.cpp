#include "bench/llm/device_state.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gemmtune::bench {

DeviceState device_state(const std::vector<monitor::MonitorSample>& samples, double from_s,
                         double to_s) {
  DeviceState state;
  double clock_sum = 0, power_sum = 0;
  int clocks = 0, powers = 0;
  for (const auto& s : samples) {
    if (s.t_s < from_s || s.t_s > to_s) continue;
    ++state.samples;
    if (s.sm_clock_mhz) {
      clock_sum += *s.sm_clock_mhz;
      ++clocks;
    }
    if (s.power_w) {
      power_sum += *s.power_w;
      ++powers;
    }
    if (s.temperature_c)
      state.max_temperature_c = std::max(state.max_temperature_c, *s.temperature_c);
  }
  if (clocks > 0) state.sm_clock_mhz = clock_sum / clocks;
  if (powers > 0) state.power_w = power_sum / powers;
  return state;
}

std::optional<std::pair<double, double>> finalists_window(const TuningReport& report,
                                                          double tuning_started_s) {
  double t = tuning_started_s;
  std::optional<std::pair<double, double>> window;
  for (const auto& p : report.phases) {
    if (p.phase == "measure" || p.phase == "confirm" || p.phase == "trial") {
      if (!window) window.emplace(t, t);
      window->second = t + p.seconds;
    }
    t += p.seconds;
  }
  return window;
}

std::string describe(const DeviceState& state) {
  if (state.samples == 0) return "no monitor samples";
  return fmt::format("{:.0f} MHz, {:.0f} W, {} °C ({} samples)", state.sm_clock_mhz, state.power_w,
                     state.max_temperature_c, state.samples);
}

}  // namespace gemmtune::bench
