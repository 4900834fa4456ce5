// Converting between results stores: load every table from one store and write it to another.
//
// Contract: CSV ↔ SQLite keeps every winner, every validator (in key order) and every extra
// field, and a CSV → SQLite → CSV round trip gives back the same bytes. A CSV file holds one
// environment: converting a store with several into CSV is an InputError listing them (numbered
// from 1, in load order) unless `environment` selects one.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>

#include "db/diagnostics.hpp"
#include "db/results_store.hpp"

namespace gemmtune {

struct ConvertOptions {
  std::optional<std::size_t> environment;  // 1-based, in load order; all when absent
  // false: a file at the target, also one another program makes while the source is read, is
  // refused (InputError naming it), never replaced: the target is created with link(2), which
  // fails rather than replaces (`db convert` without --force).
  bool replace = true;
};

struct ConvertReport {
  std::size_t tables = 0;
  std::size_t entries = 0;
};

ConvertReport convert_store(ResultsStore& from, ResultsStore& to, const ConvertOptions& options,
                            Diagnostics& diagnostics);

// convert_store between the stores at two paths, writing the target whole: with `replace`,
// whatever file is at `to` is replaced (a CSV file atomically; a SQLite database is built beside
// it and renamed over it, its -wal and -journal files removed), so that the target holds the
// converted tables and nothing else; without it, a file there is refused (and so are SQLite's
// -wal and -journal files of a database gone). A missing source is an InputError naming it; the
// source is read in full before the target is written, so that a conversion that fails on its input
// leaves nothing behind.
ConvertReport convert_file(const std::filesystem::path& from, const std::filesystem::path& to,
                           const ConvertOptions& options, Diagnostics& diagnostics);

// Writes `table` as a new CSV file at `path`, or, where `replace`, over what is there (atomically
// either way); without `replace` a file at `path` is an InputError naming it.
void write_csv_file(const std::filesystem::path& path, const ResultsTable& table, bool replace);

}  // namespace gemmtune
