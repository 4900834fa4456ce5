// gemmtune/options.hpp — what a Context is told at start.
//
// Options are a plain struct: fill it in code, or start from Options::from_environment(), which
// reads the GEMMTUNE_* variables once (the table is in docs/options.md). Every setting that makes
// sense at run time can also be changed later through the Context (enable, tuning_enable,
// set_max_tuning_duration, set_filename, ...), unlike environment variables cached in statics.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/solution.hpp"

namespace gemmtune {

// Where the Context's messages go: refused or unreadable files, fallbacks, and with `verbose` what
// it loads and tunes. Null means stderr, each message on a line of its own prefixed "gemmtune: ".
using LogSink = std::function<void(std::string_view message)>;

// The largest Options::workspace_mb, 1 TiB: as the command line's --workspace-mb.
inline constexpr std::size_t kMaxWorkspaceMb = std::size_t{1} << 20;

struct Options {
  // Off: every GEMM runs Default; nothing is tuned or recorded.
  bool enabled = true;
  // A problem met for the first time is tuned (once, even when several threads meet it) and its
  // winner appended to the results file at once.
  bool tuning = false;
  // A problem with no result is appended, once, to the untuned file (for `gemmtune tune`).
  bool record_untuned = false;
  bool verbose = false;

  std::string backend = "auto";  // "auto" (CUDA where a GPU is present), "cpu" or "cuda"
  int device = 0;                // device ordinal; the Context drives this one device (the CPU
                                 // backend has one, 0)

  // Results file (CSV or SQLite by extension), loaded at start if it exists. With
  // insert_device_ordinal the ordinal goes before the extension: tunableop_results0.csv.
  std::string filename = "tunableop_results.csv";
  std::string untuned_filename = "tunableop_untuned.csv";
  bool insert_device_ordinal = true;
  // Write the whole results table to the results file when the Context is destroyed (results
  // tuned online are already appended as they are found; this also rewrites what read_file
  // merged in). A CSV file measured in another environment is left as it was, with a warning.
  bool write_file_on_exit = false;

  // Tuning knobs, as in `gemmtune tune` (0 = no cap of that kind).
  double max_tuning_duration_ms = 30;
  int max_tuning_iterations = 100;
  double max_warmup_duration_ms = 0;
  int max_warmup_iterations = 1;
  std::optional<double> rotating_buffer_mb;  // unset: at least twice the last-level cache
  std::string numerical_check = "on";        // "on", "off" or "ATOL_RTOL"; else invalid_argument
  // Largest workspace a tuned candidate may use, and the workspace the Context hands to a
  // solution when the caller passes none, MiB. Default is rebuilt under it (for GemmAndBias and
  // ScaledGemm it is cuBLASLt's heuristic pick, which depends on it): give it the --workspace-mb
  // the results were tuned with. At most kMaxWorkspaceMb (the constructor throws
  // std::invalid_argument for more).
  std::size_t workspace_mb = 32;

  // The application's own solution providers, registered before the results file is loaded.
  std::vector<std::shared_ptr<SolutionProvider>> providers;
  LogSink log;

  // Defaults overridden by the GEMMTUNE_* variables that are set. A value that cannot be parsed
  // keeps the default and is reported by the Context (see `warnings`); it never throws.
  static Options from_environment();
  // The names of every variable from_environment reads.
  static std::span<const std::string_view> environment_variables();

  // Problems from_environment met, for the Context to report.
  std::vector<std::string> warnings;
};

// "results.csv" → "results0.csv" (ordinal before the extension); a "%d" in the name is replaced
// instead; a name without an extension gets the ordinal at its end.
std::string with_device_ordinal(std::string_view filename, int ordinal);

}  // namespace gemmtune
