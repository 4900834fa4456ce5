// MamfOptions: everything `gemmtune mamf` is told — mamf-finder.py's options under their own names
// and meanings, plus gemmtune's (tuned solutions, results lookup, sustained window, plot, store,
// peak) — filled once at start from the command line and the layered configuration, and printed
// with every report.
#pragma once

#include <optional>
#include <string>

#include "drivers/backend_factory.hpp"
#include "drivers/config/device_spec.hpp"
#include "drivers/mamf/clock_warmup.hpp"
#include "drivers/mamf/shape_bench.hpp"
#include "drivers/mamf/shape_range.hpp"
#include "tuner/dtype.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::mamf {

struct MamfOptions {
  DimSpec m{"m", {}, {}};
  DimSpec n{"n", {}, {}};
  DimSpec k{"k", {}, {}};
  DType dtype = DType::BFloat16;
  BackendKind backend = BackendKind::Auto;
  int device = 0;
  BenchOptions bench;       // --num_iterations, --num_warmup_iterations, --rotate, --seed
  SettleOptions warmup;     // --max-warmup-seconds
  bool tuned = false;       // tune every shape and measure the winner beside Default
  std::string results_file; // look solutions up here (before tuning)
  TunerOptions tuner;       // how --tuned tunes
  double sustained_seconds = 0;
  int monitor_interval_ms = 100;      // GPU monitor sampling (drivers/monitor/), ms; 0 = off
  std::optional<double> peak_tflops;  // overrides the device's
  std::optional<DeviceSpec> device_spec;  // the configuration's [device]; none: unknown device
  std::string config;  // the effective configuration (TOML), recorded with the report and run
  std::string store_file;             // results store (.db/.sqlite/.csv) for every shape
  std::string plot_file;              // SVG
  std::string output_file;            // the mamf-finder style log
  std::string notes;
  bool verbose = true;
};

// The effective options, one "key=value" per line.
std::string describe(const MamfOptions& options);

}  // namespace gemmtune::mamf
