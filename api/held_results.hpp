// HeldResults: the results a Context holds (loaded from files, tuned here), the environment it
// labels them with, and the results file they go to. A result tuned here is appended to that file
// as it comes, so that a process that dies keeps it; write_file writes a snapshot
// (api/results_file.hpp). Not thread-safe: the Context calls it under its writer mutex.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/context_log.hpp"
#include "db/results_store.hpp"
#include "db/results_table.hpp"
#include "tuner/environment.hpp"
#include "tuner/result.hpp"

namespace gemmtune::api {

class HeldResults {
 public:
  explicit HeldResults(const ContextLog& log) : log_(log) {}

  const ResultsTable& table() const { return table_; }

  // The results file: appends and a write_file without a name go there. A failure to append to a
  // new one is said anew.
  const std::string& path() const { return path_; }
  void set_path(std::string path);

  // What appends and writes label results with: the validators of the file at path() when it was
  // loaded and accepted (they match this machine's, and may add PyTorch's), else this machine's.
  // Never another file's (read_file merges results, not validators).
  void set_environment(Environment environment) { environment_ = std::move(environment); }

  void add_loaded(const ResultEntry& line);
  // Held, and appended to the results file; where that fails, kept in memory only (said once).
  void add_tuned(const ResultEntry& line, const std::vector<CandidateReport>& candidates);

  // What write_file writes: the results, labelled, and which of them were tuned here.
  struct Snapshot {
    ResultsTable table;
    std::set<ResultKey> tuned_here;
  };
  Snapshot snapshot() const;

 private:
  const ContextLog& log_;
  ResultsTable table_;
  // The problems of `table_` this Context tuned (the others it loaded): on write_file, its own
  // results replace the file's, while a loaded one gives way to what the file holds now.
  std::set<ResultKey> tuned_here_;
  Environment environment_;
  std::string path_;
  std::unique_ptr<ResultsStore> store_;  // open for appends to store_path_
  std::string store_path_;
  bool append_warned_ = false;
};

}  // namespace gemmtune::api
