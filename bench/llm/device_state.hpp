// What the GPU was doing while the tuner measured its finalists and while the benchmark measured
// again: the means of the NVML monitor's samples over each window. The tuner chooses in the state
// it finds the device in, and a GEMM's speed, and which of two configurations is the faster,
// moves with the SM clock that power and temperature allow (bench/results/2026-11-21-h200-power-
// drift.md); the benchmark reports the two states side by side so that a miss can be read
// against them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "drivers/monitor/monitor_sample.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {

struct DeviceState {
  int samples = 0;            // monitor samples in the window (0: none, the fields below unset)
  double sm_clock_mhz = 0;    // mean over the samples that have it
  double power_w = 0;         // mean
  int max_temperature_c = 0;  // highest
};

// The samples whose time (seconds since the monitor started) falls in [from_s, to_s].
DeviceState device_state(const std::vector<monitor::MonitorSample>& samples, double from_s,
                         double to_s);

// The window of a tuning's finalists' phases (measure, confirm, trial), in the monitor's seconds,
// from the time the tuning started there and its phase times (TuningReport::phases, in order);
// nullopt where the tuning has none of these phases.
std::optional<std::pair<double, double>> finalists_window(const TuningReport& report,
                                                          double tuning_started_s);

// "1965 MHz, 612 W, 51 °C (12 samples)", or "no monitor samples".
std::string describe(const DeviceState& state);

}  // namespace gemmtune::bench
