// BenchRow and BenchResult: what `gemmtune bench` found — two rows per case, Default's and the
// tuned solution's — the one record that the terminal table, the CSV and the JSONL are made of.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/bench/bench_case.hpp"
#include "drivers/bench/bench_metrics.hpp"

namespace gemmtune::bench {

enum class RowKind { Default, Tuned };
// Ok: measured. Failed: the case or this solution could not be measured (`error` says why).
// Skipped: gemmtune has no GEMM for the case's dtype.
enum class RowStatus { Ok, Failed, Skipped };

std::string_view to_string(RowKind kind);      // "default", "tuned"
std::string_view to_string(RowStatus status);  // "ok", "failed", "skipped"

// Where the tuned row's solution came from.
inline constexpr std::string_view kSourceDefault = "default";    // the Default row itself
inline constexpr std::string_view kSourceResults = "results";    // looked up in --results
inline constexpr std::string_view kSourceTuned = "tuned";        // tuned on the spot
inline constexpr std::string_view kSourceFallback = "fallback";  // the stored name cannot run
                                                                 // here; Default measured instead

struct BenchRow {
  std::size_t case_index = 0;  // 0-based, in the workload's expanded order
  BenchCase bench_case;
  std::string gemm_dtype;  // gemmtune's dtype name ("float16"); empty when skipped
  std::string op_signature, params_signature;  // the column-major problem, as PyTorch names it
  RowKind kind = RowKind::Default;
  std::string solution;  // the solution measured
  std::string source;    // kSource*
  RowStatus status = RowStatus::Ok;
  std::string error;  // why it failed or was skipped
  std::optional<BenchMetrics> metrics;
  std::optional<double> speedup_vs_default;  // tuned rows: Default's avg latency / this one's
  std::string conditions;                    // rotation and cache flushing of the measurement
};

struct BenchResult {
  std::vector<BenchRow> rows;
  std::vector<std::string> notes;  // fallbacks, failures, anything the reader must know
  bool interrupted = false;
  std::size_t cases_run = 0;  // cases whose two rows are in `rows`

  // Every row measured (none failed or skipped) and not interrupted.
  bool complete() const;
};

}  // namespace gemmtune::bench
