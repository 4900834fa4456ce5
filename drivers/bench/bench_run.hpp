// run_bench: `gemmtune bench`'s work on one device — for each case of a workload, Default and the
// tuned solution, measured side by side (measure_pair), with micro_perf's metrics.
//
// The tuned solution of a case is the one a results file holds for its problem (looked up by
// signature, this environment's entries first), else the winner of tuning the problem right here
// with the Tuner and the given TunerOptions. A stored name that cannot run here falls back to
// Default, with a note; a winner that is Default is reported as such, with Default's own numbers
// (speedup 1). The run opens nothing itself: the caller passes the backend and its registry.
//
// Contract: every case yields two rows (Default, tuned), in workload order; a case that cannot be
// measured yields failed rows with the reason and the run goes on; a case whose dtype gemmtune
// has no GEMM for yields skipped rows. A lost device (DeviceError) ends the run: the case in
// flight fails, the rest are noted as not run. request_bench_stop() (from a signal handler)
// ends the run after the case in flight.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drivers/bench/bench_case.hpp"
#include "drivers/bench/bench_metrics.hpp"
#include "drivers/bench/bench_result.hpp"
#include "tuner/backend.hpp"
#include "tuner/environment.hpp"
#include "tuner/registry.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {

struct BenchOptions {
  TunerOptions tuner;     // for tuning on the spot; its timing's rotating_buffer_mb, flush_cache,
                          // mode and its seed also set how the bench measures
  double warmup_ms = 25;  // per solution and case, untimed: device time first,
  int warmup_iterations = 10;    // then iterations
  double memory_fraction = 0.5;  // of the available memory, for the measured operands
};

// The solutions a results file names, by (op_signature, params_signature).
struct TunedSolutions {
  std::string file;
  std::map<std::pair<std::string, std::string>, std::string> by_signature;
  bool this_environment = false;  // the file holds results measured in this environment
};

// Loads a results file (CSV or SQLite); where it holds several environments, the entries of
// `environment` win over the others'.
TunedSolutions load_tuned_solutions(const std::string& file, const Environment& environment);

class BenchObserver {
 public:
  virtual ~BenchObserver() = default;
  // `phase`: "tuning", "measuring".
  virtual void on_case(const BenchCase& c, std::size_t index, std::size_t total,
                       std::string_view phase) {
    (void)c, (void)index, (void)total, (void)phase;
  }
  // After each case, with every row so far (to rewrite output files as the run goes).
  virtual void on_rows(const BenchResult& so_far) { (void)so_far; }
  virtual void on_note(const std::string& note) { (void)note; }
};

// `tuned` null: every case is tuned on the spot.
BenchResult run_bench(Backend& backend, const Registry& registry, std::span<const BenchCase> cases,
                      const BenchOptions& options, const DevicePeaks& peaks,
                      const TunedSolutions* tuned, BenchObserver& observer);

// How the cases are measured, one line each, for the report.
std::vector<std::string> describe_measurement(const BenchOptions& options);

void request_bench_stop() noexcept;

}  // namespace gemmtune::bench
