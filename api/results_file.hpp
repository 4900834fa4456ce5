// A results file as the Context reads and writes it. Loading reads it (CSV or SQLite), picks the
// environment measured on this machine, and explains a refusal; it never throws: an unreadable or
// corrupt file is a refused file with the reason, so that an application keeps running on
// Default. Writing merges the Context's results into what the file holds now.
#pragma once

#include <cstddef>
#include <set>
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

// Throws InputError where `path` is a CSV file that load_results_file refuses for `current`:
// replacing it would lose what it holds.
void refuse_to_replace_another_environment(const std::string& path, const Environment& current);

// Writes `held` (its environment's table) into `path`, keeping what the file holds besides;
// `tuned_here` are the results of `held` that replace the file's. Returns how many results the
// table written holds. Throws where the file cannot be written, and InputError, leaving it as it
// is, where the file written would lose what it holds: lines this Context cannot read, or (a CSV
// file) validators other than exactly `held`'s.
std::size_t write_results_file(const std::string& path, const ResultsTable& held,
                               const std::set<ResultKey>& tuned_here);

}  // namespace gemmtune::api
