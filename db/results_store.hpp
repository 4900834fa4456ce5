// ResultsStore: where tuned winners live — a CSV file in TunableOp's format or a SQLite
// database — behind one interface chosen by the file's extension.
//
// Contract:
// - load() returns one ResultsTable per environment (a CSV file holds exactly one).
// - write(table) replaces that environment's results: atomically for CSV (temp file + rename),
//   in one transaction for SQLite. Other environments of a SQLite store are untouched.
// - update(produce) is write() of a table computed from what the store holds (update_environments:
//   of several tables, for SQLite in one transaction), with no append of
//   gemmtune's (a tuning run, the library) coming between that read and the write, so that no
//   result appended meanwhile is lost: a CSV file is read and replaced under its append lock
//   (rewrite_file_atomically), a database read and written in one write transaction.
// - append() adds one result durably, for tuning runs that must survive kill -9: when it
//   returns, the result is on disk. It never mixes environments: appending to a CSV file whose
//   validators differ throws InputError explaining the difference. SQLite also records every
//   candidate's measurement.
// - record_run() keeps a tuning run's command line, options, times and status (SQLite only;
//   CSV has nowhere to put it and ignores it).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "db/diagnostics.hpp"
#include "db/results_table.hpp"
#include "tuner/environment.hpp"
#include "tuner/result.hpp"

namespace gemmtune {

struct RunRecord {
  std::string command_line;
  std::string options;  // the effective options, as printed with every report
  std::chrono::system_clock::time_point started_at;
  std::chrono::system_clock::time_point ended_at;
  std::string status;  // "ok", "partial", "failed", "interrupted", ...
};

class ResultsStore {
 public:
  virtual ~ResultsStore() = default;

  virtual const std::filesystem::path& path() const = 0;
  // "csv" or "sqlite", for messages.
  virtual std::string_view kind() const = 0;

  // Bad lines go to `diagnostics` (which throws on the first one when strict).
  virtual std::vector<ResultsTable> load(Diagnostics& diagnostics) = 0;
  // Strict: throws InputError on the first bad line instead of skipping it.
  std::vector<ResultsTable> load();

  virtual void write(const ResultsTable& table) = 0;

  // What update() computes: from the tables as they stand (none for a missing file; a file that
  // holds nothing gives one such table) and the diagnostics of reading them, the table to write,
  // or nullopt to change nothing.
  using Update = std::function<std::optional<ResultsTable>(std::vector<ResultsTable> current,
                                                           const Diagnostics& diagnostics)>;
  // Bad lines go to `diagnostics` (which throws on the first one when strict), before `produce`
  // runs. `produce` may run more than once (a missing CSV file that another process creates
  // meanwhile is read again), so it must have no effect but its result; an exception from it
  // propagates and writes nothing.
  virtual void update(Diagnostics& diagnostics, const Update& produce) = 0;

  // update() for several environments at once: `produce` returns the tables to write (none:
  // change nothing), each replacing its environment's results, all or none of them written (one
  // transaction). A CSV file holds one environment: more than one table is an internal error.
  using UpdateEnvironments = std::function<std::vector<ResultsTable>(
      std::vector<ResultsTable> current, const Diagnostics& diagnostics)>;
  virtual void update_environments(Diagnostics& diagnostics, const UpdateEnvironments& produce);

  // Whether the store holds a result for the problem measured under `environment`, as it stands
  // now: what a tuning run asks before it measures a problem another run may have saved just
  // now. This default reads everything; the stores answer with less.
  virtual bool holds(const Environment& environment, std::string_view op_signature,
                     std::string_view params_signature);

  virtual void append(const Environment& environment, const ResultEntry& entry,
                      std::span<const CandidateReport> candidates = {}) = 0;
  virtual void record_run(const RunRecord& run) = 0;
};

// .csv → CSV; .db, .sqlite, .sqlite3 → SQLite; any other extension is an InputError naming the
// path and the accepted extensions. A SQLite database is created if missing (an existing one is
// only read until the first write: sqlite_store.hpp); a CSV file only when first written or
// appended to.
std::unique_ptr<ResultsStore> open_results_store(const std::filesystem::path& path);

// "csv" or "sqlite", as open_results_store decides by the extension, without opening anything:
// for callers that must know the kind of a store before they may create it.
std::string_view results_store_kind(const std::filesystem::path& path);

// Whether open_results_store would open `path` as a SQLite database (.db, .sqlite, .sqlite3 in
// any case); false for .csv and for an extension it refuses.
bool is_sqlite_path(const std::filesystem::path& path);

// The empty-file rule, the one every writer and merger applies: a table read with no validators,
// no entries and no bad lines (a blank file, a BOM alone, a file created by `touch`) holds
// nothing tuned. Such a file may be replaced, and it is no source: it has no environment to
// compare with. A file with bad lines is not empty: replacing it would lose them.
// `diagnostics` are those of reading this one file.
bool holds_nothing(const ResultsTable& table, const Diagnostics& diagnostics);

// Whether a table gave nothing to use: no validators and no entries, bad lines or not (a source
// of nothing but bad lines, such as an untuned file given by mistake).
bool gave_nothing(const ResultsTable& table);
// Whether every table did.
bool all_gave_nothing(const std::vector<ResultsTable>& tables);

// "2026-11-21T11:12:10Z": how stores write times (UTC, sortable as text).
std::string format_timestamp(std::chrono::system_clock::time_point t);

}  // namespace gemmtune
