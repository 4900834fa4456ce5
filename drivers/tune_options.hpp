// TuneOptions: everything `gemmtune tune` (and tuning from code) is told, filled once at start
// from the command line and GEMMTUNE_* environment variables, and printed with every report.
#pragma once

#include <string>
#include <vector>

#include "drivers/backend_factory.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {

// PyTorch's default results file name for device 0 (tunableop_results<ordinal>.csv).
inline constexpr const char* kDefaultResultsFile = "tunableop_results0.csv";

struct TuneOptions {
  std::vector<std::string> inputs;    // untuned files or glob patterns
  std::vector<std::string> problems;  // "OP_SIG,PARAMS_SIG" given inline
  std::string output = kDefaultResultsFile;
  BackendKind backend = BackendKind::Auto;
  int device = 0;
  TunerOptions tuner;
  bool strict = false;             // stop at the first bad input line
  bool verbose = false;            // every candidate's disposition
};

// The effective options, one "key=value" per line, for reports and the runs table.
std::string describe(const TuneOptions& options);

}  // namespace gemmtune
