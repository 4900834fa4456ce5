// Loading a results file for the Context: read it (CSV or SQLite), pick the environment measured
// on this machine, and explain a refusal. Never throws: an unreadable or corrupt file is a
// refused file with the reason, so that an application keeps running on Default.
#pragma once

#include <string>

#include "db/results_table.hpp"
#include "gemmtune/context.hpp"
#include "tuner/environment.hpp"

namespace gemmtune::api {

struct LoadedResults {
  LoadReport report;
  ResultsTable table;   // the accepted environment's results (empty when refused)
  std::string refusal;  // when refused: why, on one line (report.message explains at length)
};

LoadedResults load_results_file(const std::string& path, const Environment& current);

}  // namespace gemmtune::api
