#include "db/sqlite_store.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "db/atomic_file.hpp"
#include "db/sqlite_handle.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS environments(
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS environment_validators(
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY(environment_id, key));
CREATE TABLE IF NOT EXISTS results(
  id INTEGER PRIMARY KEY,
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  op_signature TEXT NOT NULL,
  params_signature TEXT NOT NULL,
  solution TEXT NOT NULL,
  time_ms REAL NOT NULL,
  time_text TEXT NOT NULL,
  extra_json TEXT,
  updated_at TEXT NOT NULL,
  UNIQUE(environment_id, op_signature, params_signature));
CREATE TABLE IF NOT EXISTS measurements(
  id INTEGER PRIMARY KEY,
  environment_id INTEGER NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  op_signature TEXT NOT NULL,
  params_signature TEXT NOT NULL,
  solution TEXT NOT NULL,
  disposition TEXT NOT NULL,
  reason TEXT NOT NULL,
  iterations INTEGER NOT NULL,
  median_ms REAL NOT NULL,
  mean_ms REAL NOT NULL,
  min_ms REAL NOT NULL,
  max_ms REAL NOT NULL,
  stddev_ms REAL NOT NULL,
  tflops REAL NOT NULL,
  measured_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS measurements_by_problem
  ON measurements(environment_id, op_signature, params_signature);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  command_line TEXT NOT NULL,
  options TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT NOT NULL,
  status TEXT NOT NULL);
)sql";

std::string now_text() {
  return format_timestamp(std::chrono::system_clock::now());
}

// Extra fields as a JSON array: NULL when there are none, so that "no extra fields" and "one
// empty extra field" stay distinct. A JSON string holds UTF-8 only, but a CSV field is bytes (a
// Latin-1 file is valid input), so a field that is not UTF-8 is stored as {"hex": its bytes in
// hex}: every field comes back byte for byte, and the common case stays readable.
std::optional<std::string> extra_to_json(const std::vector<std::string>& extra) {
  if (extra.empty()) return std::nullopt;
  nlohmann::json array = nlohmann::json::array();
  for (const auto& field : extra) {
    try {
      (void)nlohmann::json(field).dump();  // the serializer's own UTF-8 check
      array.push_back(field);
    } catch (const nlohmann::json::type_error&) {
      std::string hex;
      for (const unsigned char c : field) hex += fmt::format("{:02x}", c);
      array.push_back({{"hex", hex}});
    }
  }
  return array.dump();
}

std::string bytes_from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0 || hex.find_first_not_of("0123456789abcdefABCDEF") != hex.npos) {
    throw std::invalid_argument(fmt::format("'{}' is not hex", hex));
  }
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return bytes;
}

std::vector<std::string> extra_from_json(const std::string& text, const std::string& where) {
  try {
    const auto array = nlohmann::json::parse(text);
    if (!array.is_array()) throw std::invalid_argument("not an array");
    std::vector<std::string> extra;
    for (const auto& field : array) {
      extra.push_back(field.is_object() ? bytes_from_hex(field.at("hex").get<std::string>())
                                        : field.get<std::string>());
    }
    return extra;
  } catch (const std::exception& e) {
    GEMMTUNE_THROW("{}: results.extra_json is not a JSON array of strings and {{\"hex\": ...}}: {}",
                   where, e.what());
  }
}

class SqliteStore final : public ResultsStore {
 public:
  // An existing database is opened for reading only, until the first write: show, check,
  // convert and merge read databases in read-only files and directories, and a file that is
  // only read is not changed (no WAL switch, no schema, no write lock). A new one is created with
  // its schema at once.
  explicit SqliteStore(const std::filesystem::path& path)
      : writing_(!std::filesystem::exists(path)),
        db_(open(path, writing_)),
        has_schema_(check_schema(/*create=*/writing_)),
        writing_file_(writing_ ? identity_of(path) : std::nullopt) {}

  const std::filesystem::path& path() const override { return db_.path(); }
  std::string_view kind() const override { return "sqlite"; }

  std::vector<ResultsTable> load(
      Diagnostics& /*diagnostics: rows were checked on insert*/) override {
    if (!has_schema_) return {};  // an empty database, not written to yet
    SqliteTransaction read(db_, SqliteTransaction::Mode::Deferred);  // one consistent snapshot
    check_integrity();
    std::vector<ResultsTable> tables = read_tables();
    read.commit();
    return tables;
  }

  bool holds(const Environment& environment, std::string_view op_signature,
             std::string_view params_signature) override {
    if (!has_schema_) has_schema_ = check_schema(/*create=*/false);  // a writer may have made it
    if (!has_schema_) return false;
    // The environment's id, then one row through the results' unique index: no table is read.
    SqliteTransaction read(db_, SqliteTransaction::Mode::Deferred);  // one consistent snapshot
    bool found = false;
    if (const auto env = find_environment_id(environment)) {
      SqliteStatement result(db_,
                             "SELECT 1 FROM results WHERE environment_id = ?1 AND "
                             "op_signature = ?2 AND params_signature = ?3");
      result.bind(1, *env).bind(2, op_signature).bind(3, params_signature);
      found = result.step();
    }
    read.commit();
    return found;
  }

  void write(const ResultsTable& table) override {
    open_for_writing();
    SqliteTransaction transaction(db_);
    write_table(table);
    transaction.commit();
  }

  void update(Diagnostics& diagnostics, const Update& produce) override {
    update_environments(diagnostics,
                        [&](std::vector<ResultsTable> current, const Diagnostics& read) {
                          std::vector<ResultsTable> tables;
                          if (auto table = produce(std::move(current), read))
                            tables.push_back(std::move(*table));
                          return tables;
                        });
  }

  void update_environments(Diagnostics& diagnostics, const UpdateEnvironments& produce) override {
    open_for_writing();
    // The read inside the write transaction (IMMEDIATE: the write lock from its start), so that
    // a result another process appends waits for the commit instead of being deleted by it.
    SqliteTransaction transaction(db_);
    for (const auto& table : produce(read_tables(), diagnostics)) write_table(table);
    transaction.commit();
  }

  void append(const Environment& environment, const ResultEntry& entry,
              std::span<const CandidateReport> candidates) override {
    open_for_writing();
    SqliteTransaction transaction(db_);
    const std::int64_t env = environment_id(environment);
    const std::string now = now_text();
    upsert_result(env, entry, format_time_ms(entry.time_ms), now);
    SqliteStatement insert(
        db_,
        "INSERT INTO measurements(environment_id, op_signature, params_signature, solution, "
        "disposition, reason, iterations, median_ms, mean_ms, min_ms, max_ms, stddev_ms, tflops, "
        "measured_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
    for (const auto& c : candidates) {
      insert.reset();
      insert.bind(1, env)
          .bind(2, std::string_view(entry.op_signature))
          .bind(3, std::string_view(entry.params_signature))
          .bind(4, std::string_view(c.solution))
          .bind(5, to_string(c.disposition))
          .bind(6, std::string_view(c.reason))
          .bind(7, c.stats.iterations)
          .bind(8, c.stats.median_ms)
          .bind(9, c.stats.mean_ms)
          .bind(10, c.stats.min_ms)
          .bind(11, c.stats.max_ms)
          .bind(12, c.stats.stddev_ms)
          .bind(13, c.tflops)
          .bind(14, std::string_view(now));
      insert.run();
    }
    transaction.commit();
  }

  void record_run(const RunRecord& run) override {
    open_for_writing();
    SqliteTransaction transaction(db_);
    SqliteStatement(db_,
                    "INSERT INTO runs(command_line, options, started_at, ended_at, status) "
                    "VALUES(?1, ?2, ?3, ?4, ?5)")
        .bind(1, std::string_view(run.command_line))
        .bind(2, std::string_view(run.options))
        .bind(3, std::string_view(format_timestamp(run.started_at)))
        .bind(4, std::string_view(format_timestamp(run.ended_at)))
        .bind(5, std::string_view(run.status))
        .run();
    transaction.commit();
  }

 private:
  static SqliteDatabase open(const std::filesystem::path& path, bool writing) {
    if (writing) check_can_write(path);  // "the directory does not exist", not "cannot open"
    return SqliteDatabase(
        path, writing ? SqliteDatabase::Access::ReadWrite : SqliteDatabase::Access::ReadOnly);
  }

  // Before every write. A database put in this one's place since it was opened (`db convert
  // --force` renames a new file over it, and removes the old one's -wal) would take every later
  // commit into the replaced file, lost with it: the connection is opened again on the file the
  // path names now.
  void open_for_writing() {
    if (writing_ && identity_of(path()) == writing_file_) return;
    const std::filesystem::path where = path();
    check_can_write(where);  // WAL needs files beside the database
    db_ = SqliteDatabase(where, SqliteDatabase::Access::ReadWrite);
    writing_ = true;
    has_schema_ = check_schema(/*create=*/true);
    writing_file_ = identity_of(where);
  }

  // Refuses a newer schema or another program's database. With `create` (a connection that
  // writes), puts our schema into a new (empty) database; returns whether the schema is there.
  bool check_schema(bool create) {
    SqliteTransaction transaction(
        db_, create ? SqliteTransaction::Mode::Immediate : SqliteTransaction::Mode::Deferred);
    SqliteStatement version_query(db_, "PRAGMA user_version");
    version_query.step();
    const auto version = version_query.column_int64(0);
    if (version > kSqliteSchemaVersion) {
      // Bad input, not a failure of ours; and a database without gemmtune's tables is another
      // program's, which a newer gemmtune would not read either.
      SqliteStatement ours(
          db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'results'");
      ours.step();
      if (ours.column_int64(0) == 0) {
        throw InputError(fmt::format(
            "{}: not a gemmtune database (schema version {} and no gemmtune tables); nothing was "
            "changed",
            path().string(), version));
      }
      throw InputError(fmt::format(
          "{}: database schema version {} is newer than this gemmtune supports ({}); use a newer "
          "gemmtune; nothing was changed",
          path().string(), version, kSqliteSchemaVersion));
    }
    if (version < kSqliteSchemaVersion) {
      // Our schema goes only into a new (empty) database: another program's must not be changed,
      // and its tables would only fail our queries later with a confusing message.
      SqliteStatement tables(db_,
                             "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      std::string found;
      while (tables.step()) found += (found.empty() ? "" : ", ") + tables.column_text(0);
      if (version == 0 && !found.empty()) {
        throw InputError(fmt::format(
            "{}: not a gemmtune database (it holds the tables {} and no gemmtune schema version); "
            "nothing was changed",
            path().string(), found));
      }
      if (!create) return false;  // rolled back: a read changed nothing
      db_.exec(kSchema);
      db_.exec(fmt::format("PRAGMA user_version = {}", kSqliteSchemaVersion));
    } else {
      check_tables();
    }
    transaction.commit();
    return true;
  }

  // Our schema version with a table of it dropped (by hand, by another program) would fail the
  // first save of a run, after its first problem was tuned; it is refused when opened instead.
  void check_tables() {
    std::set<std::string> missing = {"environment_validators", "environments", "measurements",
                                     "results", "runs"};
    SqliteStatement tables(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (tables.step()) missing.erase(tables.column_text(0));
    if (!missing.empty()) {
      throw InputError(fmt::format(
          "{}: a gemmtune database (schema version {}) without its table(s) {}; it was changed "
          "by another program, and nothing was changed",
          path().string(), kSqliteSchemaVersion, fmt::join(missing, ", ")));
    }
  }

  // SQLite's own check of the file's pages (quick_check: the b-trees, not the indexes' contents),
  // before results are read from it or a run starts writing to it: a damaged page elsewhere
  // (the measurements', say) would otherwise fail a run's first save, or go unnoticed by a reader.
  // Milliseconds for the databases tuning writes.
  void check_integrity() {
    SqliteStatement check(db_, "PRAGMA quick_check(1)");
    const std::string verdict = check.step() ? check.column_text(0) : std::string("no answer");
    if (verdict != "ok") {
      throw InputError(fmt::format(
          "{}: the database file is damaged (PRAGMA quick_check: {}); nothing was changed. The "
          "sqlite3 shell's .recover command may save its rows",
          path().string(), verdict));
    }
  }

  // Every environment's table, in load order. Must run inside a transaction.
  std::vector<ResultsTable> read_tables() {
    std::vector<ResultsTable> tables;
    SqliteStatement envs(db_, "SELECT id FROM environments ORDER BY id");
    SqliteStatement validators(
        db_,
        "SELECT key, value FROM environment_validators WHERE environment_id = ?1 "
        "ORDER BY position");
    SqliteStatement results(
        db_,
        "SELECT op_signature, params_signature, solution, time_ms, time_text, extra_json "
        "FROM results WHERE environment_id = ?1 ORDER BY id");
    while (envs.step()) {
      const std::int64_t id = envs.column_int64(0);
      ResultsTable table;
      validators.reset();
      validators.bind(1, id);
      while (validators.step()) {
        table.environment.set(validators.column_text(0), validators.column_text(1));
      }
      results.reset();
      results.bind(1, id);
      while (results.step()) {
        ResultEntry entry{results.column_text(0),
                          results.column_text(1),
                          results.column_text(2),
                          results.column_double(3),
                          {}};
        if (!results.column_is_null(5)) {
          entry.extra = extra_from_json(results.column_text(5), path().string());
        }
        table.upsert(std::move(entry), results.column_text(4));
      }
      tables.push_back(std::move(table));
    }
    return tables;
  }

  // Replaces the results of `table`'s environment. Must run inside a write transaction.
  void write_table(const ResultsTable& table) {
    const std::int64_t env = environment_id(table.environment);
    SqliteStatement(db_, "DELETE FROM results WHERE environment_id = ?1").bind(1, env).run();
    const std::string now = now_text();
    for (const auto& entry : table.entries) {
      upsert_result(env, entry, table.time_text_of(entry), now);
    }
  }

  // The id of `environment`, inserting it (validators in their order) when it is new. Must run
  // inside a write transaction.
  std::optional<std::int64_t> find_environment_id(const Environment& environment) {
    SqliteStatement find(db_, "SELECT id FROM environments WHERE fingerprint = ?1");
    find.bind(1, std::string_view(environment_fingerprint(environment)));
    if (find.step()) return find.column_int64(0);
    return std::nullopt;
  }

  std::int64_t environment_id(const Environment& environment) {
    if (const auto found = find_environment_id(environment)) return *found;
    const std::string fingerprint = environment_fingerprint(environment);
    SqliteStatement(db_, "INSERT INTO environments(fingerprint, created_at) VALUES(?1, ?2)")
        .bind(1, std::string_view(fingerprint))
        .bind(2, std::string_view(now_text()))
        .run();
    const std::int64_t id = db_.last_insert_rowid();
    SqliteStatement insert(db_,
                           "INSERT INTO environment_validators(environment_id, key, value, "
                           "position) VALUES(?1, ?2, ?3, ?4)");
    std::int64_t position = 0;
    for (const auto& [key, value] : environment.entries()) {
      insert.reset();
      insert.bind(1, id)
          .bind(2, std::string_view(key))
          .bind(3, std::string_view(value))
          .bind(4, position++);
      insert.run();
    }
    return id;
  }

  void upsert_result(std::int64_t env, const ResultEntry& entry, std::string_view time_text,
                     std::string_view now) {
    SqliteStatement(
        db_,
        "INSERT INTO results(environment_id, op_signature, params_signature, solution, time_ms, "
        "time_text, extra_json, updated_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
        "ON CONFLICT(environment_id, op_signature, params_signature) DO UPDATE SET "
        "solution = excluded.solution, time_ms = excluded.time_ms, "
        "time_text = excluded.time_text, extra_json = excluded.extra_json, "
        "updated_at = excluded.updated_at")
        .bind(1, env)
        .bind(2, std::string_view(entry.op_signature))
        .bind(3, std::string_view(entry.params_signature))
        .bind(4, std::string_view(entry.solution))
        .bind(5, entry.time_ms)
        .bind(6, time_text)
        .bind(7, extra_to_json(entry.extra))
        .bind(8, now)
        .run();
  }

  bool writing_;  // whether db_ is a connection that writes (opened at the first write)
  SqliteDatabase db_;
  bool has_schema_;
  std::optional<FileIdentity> writing_file_;  // the file db_ writes, once it writes
};

}  // namespace

std::string environment_fingerprint(const Environment& environment) {
  auto entries = environment.entries();
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& [key, value] : entries) {
    out += fmt::format("{}:{}={}:{};", key.size(), key, value.size(), value);
  }
  return out;
}

std::unique_ptr<ResultsStore> make_sqlite_store(const std::filesystem::path& path) {
  return std::make_unique<SqliteStore>(path);
}

}  // namespace gemmtune
