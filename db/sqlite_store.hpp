// SqliteStore: a ResultsStore in a SQLite database, holding what CSV cannot — several
// environments, every candidate's measurement, and the runs that produced them.
//
// Schema (PRAGMA user_version = kSqliteSchemaVersion; created when missing):
//   environments(id, fingerprint UNIQUE, created_at)
//   environment_validators(environment_id, key, value, position)   position keeps key order
//   results(id, environment_id, op_signature, params_signature, solution, time_ms, time_text,
//           extra_json, updated_at, UNIQUE(environment_id, op_signature, params_signature))
//   measurements(id, environment_id, op_signature, params_signature, solution, disposition,
//                reason, iterations, median_ms, mean_ms, min_ms, max_ms, stddev_ms, tflops,
//                measured_at)
//   runs(id, command_line, options, started_at, ended_at, status)
//
// An environment is identified by its validators regardless of key order (Environment's
// equality); the order of first sight is what is kept and written back. results.id follows
// insertion, so tables load in the order they were written. time_text keeps each time's
// spelling so that CSV → SQLite → CSV is byte-exact; extra_json is a JSON array of the extra
// fields, each a string or, for a field that is not UTF-8, {"hex": its bytes in hex}, so that
// they are byte-exact too. Dispositions are stored with to_string(Disposition), the one
// enum↔string table.
#pragma once

#include <filesystem>
#include <memory>

#include "db/results_store.hpp"

namespace gemmtune {

inline constexpr int kSqliteSchemaVersion = 1;

// Opens (creating the file and schema if missing) a SQLite results store. An existing database
// is only read until the first write (write, append, record_run), which opens a connection that
// writes and adds the schema to a database that has none: reading needs no write access and
// changes nothing. A database whose schema is newer than this version is refused with an Error;
// another program's database, and a file that is no database, with an InputError.
std::unique_ptr<ResultsStore> make_sqlite_store(const std::filesystem::path& path);

// Canonical text of an environment: its validators sorted by key, length-prefixed so that no
// key or value can be confused with another.
std::string environment_fingerprint(const Environment& environment);

}  // namespace gemmtune
