// RAII handles for SQLite (in the style of SQLiteCpp): a connection, a prepared statement and a
// transaction.
//
// Contract: every sqlite3 return code is checked; a failure throws naming the call, the SQL
// where there is one, and sqlite3_errmsg: an InputError naming the file where the failure is the
// file's (throw_sqlite_failure), gemmtune::Error otherwise. Destructors never throw (a failed close
// or rollback is reported on stderr). Connections that write run in WAL mode where SQLite can
// use it (otherwise in the rollback journal it keeps, as safe: sqlite_handle.cpp says why), with
// a 30 s busy timeout so that several tuning processes can write one database; write transactions
// start IMMEDIATE so that two writers queue on the busy timeout instead of failing with
// SQLITE_BUSY on lock upgrade.
// A read-only connection changes nothing, not even the journal mode. A path that cannot be
// opened, and a file that is not a database, are InputErrors naming the path: they are the
// user's files, not our bugs.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gemmtune {

// Throws for a failed SQLite call described by `what`: an InputError naming the database file
// where SQLite's verdict is on the file rather than on gemmtune's SQL (locked past the busy
// timeout, damaged, disk full, I/O error, not writable), since those are the user's to fix;
// gemmtune::Error (an internal error) otherwise.
[[noreturn]] void throw_sqlite_failure(int rc, sqlite3* db, std::string_view what, const char* file,
                                       int line);

// Throws as throw_sqlite_failure("<call> failed: <sqlite3_errmsg> (code N)") unless rc is
// SQLITE_OK.
void sqlite_check(int rc, sqlite3* db, std::string_view call, const char* file, int line);

#define GEMMTUNE_SQLITE_CHECK(db, call) \
  ::gemmtune::sqlite_check((call), (db), #call, __FILE__, __LINE__)

class SqliteDatabase {
 public:
  enum class Access { ReadWrite, ReadOnly };

  // ReadWrite opens (creating if missing) a database for reading and writing, in WAL mode.
  // ReadOnly opens an existing one for reading only, so that a database in a read-only file or
  // directory can still be read.
  explicit SqliteDatabase(const std::filesystem::path& path, Access access = Access::ReadWrite);

  sqlite3* get() const { return db_.get(); }
  const std::filesystem::path& path() const { return path_; }

  // Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  // "wal", or for a database SQLite could not switch to WAL its rollback journal's ("delete").
  std::string journal_mode();
  std::int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_.get()); }

 private:
  // Opens `name` (a path, or a URI with SQLITE_OPEN_URI) into db_ and reads its schema; returns
  // that read's result code.
  int connect(const std::string& name, int flags);
  // PRAGMA journal_mode=WAL: the journal mode SQLite answered with.
  std::string switch_to_wal();

  struct Closer {
    void operator()(sqlite3* db) const noexcept;
  };
  std::filesystem::path path_;
  std::unique_ptr<sqlite3, Closer> db_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& db, std::string_view sql);

  // Parameters are 1-based, as in SQL's ?1, ?2, ...
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view value);
  SqliteStatement& bind(int index, const char* value) {
    return bind(index, std::string_view(value));
  }
  SqliteStatement& bind_null(int index);
  SqliteStatement& bind(int index, const std::optional<std::string>& value);

  // Advances; true while a row is available.
  bool step();
  // Steps to completion, for statements that return no rows.
  void run();
  // Makes the statement ready to run again with new bindings.
  void reset();

  std::int64_t column_int64(int index) const;
  double column_double(int index) const;
  std::string column_text(int index) const;
  bool column_is_null(int index) const;

 private:
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
  };
  SqliteDatabase& db_;
  std::string sql_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

class SqliteTransaction {
 public:
  // IMMEDIATE takes the write lock at once (see the file comment); DEFERRED is for reads.
  enum class Mode { Deferred, Immediate };
  explicit SqliteTransaction(SqliteDatabase& db, Mode mode = Mode::Immediate);
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  // Rolls back unless commit() succeeded.
  ~SqliteTransaction();

  void commit();

 private:
  SqliteDatabase& db_;
  bool done_ = false;
};

}  // namespace gemmtune
