#include "db/sqlite_handle.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// Several tuning processes write one database, each for milliseconds at a time; a lock held
// longer is another program's (a browser with a transaction open), and worth a wait before the
// run gives up on it.
constexpr int kBusyTimeoutMs = 30000;

// "file:PATH?immutable=1", with the characters that mean something in a URI escaped.
std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (const char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

// Whether this process may write the database file and create files beside it: access(2), and
// for root, whom access(2) always lets write, a write bit on each (a file made read-only with
// chmod stays unwritten by a reader, whoever runs it).
bool may_write_beside(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  for (const auto& p : {path, dir}) {
    struct stat st {};
    if (::access(p.c_str(), W_OK) != 0 || ::stat(p.c_str(), &st) != 0 ||
        (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
      return false;
    }
  }
  return true;
}

bool no_write_bits(const std::filesystem::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0;
}

}  // namespace

void throw_sqlite_failure(int rc, sqlite3* db, std::string_view what, const char* file, int line) {
  const char* name = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  const std::string path = name != nullptr && *name != '\0' ? name : "the database";
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw InputError(
          fmt::format("{}: locked by another process for more than {} s; this step "
                      "wrote nothing ({})",
                      path, kBusyTimeoutMs / 1000, what));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      throw InputError(fmt::format("{}: the database file is damaged ({})", path, what));
    case SQLITE_FULL:
      throw InputError(fmt::format("{}: cannot be written: the disk is full ({})", path, what));
    case SQLITE_IOERR:
      throw InputError(fmt::format("{}: cannot be read or written: I/O error ({})", path, what));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      throw InputError(fmt::format("{}: cannot be written ({})", path, what));
    default:
      throw_error(file, line, what);
  }
}

void sqlite_check(int rc, sqlite3* db, std::string_view call, const char* file, int line) {
  if (rc == SQLITE_OK) return;
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw_sqlite_failure(rc, db, fmt::format("{} failed: {} (code {})", call, message, rc), file,
                       line);
}

void SqliteDatabase::Closer::operator()(sqlite3* db) const noexcept {
  // close_v2 defers the close until statements are finalized instead of failing.
  const int rc = sqlite3_close_v2(db);
  if (rc != SQLITE_OK) {
    report_error_noexcept(__FILE__, __LINE__, "sqlite3_close_v2 failed");
  }
}

SqliteDatabase::SqliteDatabase(const std::filesystem::path& path, Access access) : path_(path) {
  // Whether the file holds every commit itself: no -wal file with commits in it, and no rollback
  // journal a crash left to be played back.
  std::error_code none;
  const auto wal_bytes = std::filesystem::file_size(path.string() + "-wal", none);
  const bool self_contained =
      (none || wal_bytes == 0) && !std::filesystem::exists(path.string() + "-journal", none);
  int read = SQLITE_CANTOPEN;
  if (access == Access::ReadOnly) {
    if (may_write_beside(path) || (::geteuid() == 0 && self_contained)) {
      // A reader of a WAL database creates its -wal and -shm files, and only a connection that
      // may write removes them as it closes (the last one to close): so a reader that may write
      // opens for writing and refuses itself every write, and `db show` leaves no files behind.
      // Root may write a file made read-only too; it does so only where every commit is in the
      // file already, so that the close has nothing to fold into it and the file stays as it was.
      read = connect(path.string(), SQLITE_OPEN_READWRITE);
      if (read == SQLITE_OK) exec("PRAGMA query_only = ON");
    } else if (self_contained && no_write_bits(path)) {
      // A file only root may write, with every commit in it: read as immutable, SQLite creates
      // nothing beside it (a -shm file it left would stop its owner's next write).
      read = connect(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    }
  }
  // Locked (the busy timeout spent) or damaged, a read-only connection would fare no better.
  const int first = read & 0xff;
  if (first != SQLITE_OK && first != SQLITE_BUSY && first != SQLITE_LOCKED &&
      first != SQLITE_NOTADB && first != SQLITE_CORRUPT) {
    read = connect(path.string(), access == Access::ReadOnly
                                      ? SQLITE_OPEN_READONLY
                                      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  }
  if (access == Access::ReadOnly && (read & 0xff) == SQLITE_READONLY && self_contained) {
    // A WAL database in a directory we may not write: a WAL reader needs the -shm file, and
    // SQLite cannot create it. A writer would have created it, and there is no -wal file with
    // commits to find, so nothing changes the file while we read it: it may be read as immutable.
    read = connect(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  }
  sqlite3* raw = db_.get();
  if ((read & 0xff) == SQLITE_NOTADB || (read & 0xff) == SQLITE_CORRUPT) {
    throw InputError(
        fmt::format("{}: not a SQLite database ({})", path.string(), sqlite3_errmsg(raw)));
  }
  if ((read & 0xff) == SQLITE_CANTOPEN) {
    throw InputError(fmt::format("{}: cannot open: {}", path.string(), sqlite3_errmsg(raw)));
  }
  if ((read & 0xff) == SQLITE_READONLY && access == Access::ReadOnly) {
    throw InputError(fmt::format(
        "{}: cannot be read here: its directory is not writable, and SQLite must create a file "
        "beside it to read the commits in its {}-wal file ({})",
        path.string(), path.filename().string(), sqlite3_errmsg(raw)));
  }
  if ((read & 0xff) == SQLITE_READONLY ||
      (access == Access::ReadWrite && sqlite3_db_readonly(raw, "main") == 1)) {
    throw InputError(
        fmt::format("{}: cannot be written: {}", path.string(),
                    read != SQLITE_OK ? sqlite3_errmsg(raw) : "the file is read-only"));
  }
  sqlite_check(read, raw, "SELECT count(*) FROM sqlite_master", __FILE__, __LINE__);
  if (access == Access::ReadOnly) return;  // a reader changes nothing, not even the journal mode
  // WAL lets readers and a writer proceed together. Where SQLite cannot use it (a VFS or file
  // system without the shared memory its index needs) the pragma does not fail: it answers with
  // the mode it kept. That is the rollback journal, which is as atomic and, with synchronous=FULL,
  // as durable; only readers then wait for a writer's commit, on the busy timeout. So the database
  // is used in the mode it answered, and journal_mode() tells which.
  std::string journal = switch_to_wal();
  if (journal.empty() || journal == "memory" || journal == "off") {
    // A journal in memory, or none, would lose atomicity or durability; no database in a file
    // answers with them, but nothing that does may hold results.
    GEMMTUNE_THROW("{}: PRAGMA journal_mode=WAL left the journal mode '{}'", path.string(),
                   journal);
  }
  // synchronous=FULL fsyncs at every commit (in WAL mode NORMAL would not), so a committed result
  // survives power loss, as append() promises.
  exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
}

std::string SqliteDatabase::switch_to_wal() {
  // Processes that open one new database together each ask for WAL, which takes the file's
  // exclusive lock; SQLite answers some of them SQLITE_BUSY at once, without the busy handler,
  // where waiting could deadlock. They ask again, for as long as the busy timeout would wait.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  const auto keep_mode = [](void* out, int columns, char** values, char**) {
    if (columns > 0 && values[0] != nullptr) *static_cast<std::string*>(out) = values[0];
    return 0;
  };
  while (true) {
    std::string journal;
    char* error = nullptr;
    const int rc = sqlite3_exec(db_.get(), "PRAGMA journal_mode=WAL", keep_mode, &journal, &error);
    const std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    if (rc == SQLITE_OK) return journal;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
      throw_sqlite_failure(rc, db_.get(),
                           fmt::format("PRAGMA journal_mode=WAL failed on {}: {} (code {})",
                                       path_.string(), message, rc),
                           __FILE__, __LINE__);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string SqliteDatabase::journal_mode() {
  SqliteStatement mode(*this, "PRAGMA journal_mode");
  return mode.step() ? mode.column_text(0) : std::string();
}

int SqliteDatabase::connect(const std::string& name, int flags) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  db_.reset(raw);  // a handle is returned even on failure, and must be closed
  if (rc != SQLITE_OK) {
    const std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_CANTOPEN) {
      throw InputError(fmt::format("{}: cannot open: {}", path_.string(), message));
    }
    throw_error(__FILE__, __LINE__,
                fmt::format("sqlite3_open_v2({}) failed: {} (code {})", name, message, rc));
  }
  sqlite3_extended_result_codes(raw, 1);
  GEMMTUNE_SQLITE_CHECK(raw, sqlite3_busy_timeout(raw, kBusyTimeoutMs));
  // sqlite3_open_v2 reads nothing: a CSV file named .db would fail at some later statement, as
  // an internal error. Reading the schema here lets the constructor name the file instead.
  return sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
}

void SqliteDatabase::exec(std::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw_sqlite_failure(rc, db_.get(),
                         fmt::format("sqlite3_exec(\"{}\") failed on {}: {} (code {})", text,
                                     path_.string(), message, rc),
                         __FILE__, __LINE__);
  }
}

SqliteStatement::SqliteStatement(SqliteDatabase& db, std::string_view sql) : db_(db), sql_(sql) {
  sqlite3_stmt* raw = nullptr;
  const int rc =
      sqlite3_prepare_v2(db.get(), sql_.c_str(), static_cast<int>(sql_.size()) + 1, &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) {
    throw_sqlite_failure(rc, db.get(),
                         fmt::format("sqlite3_prepare_v2(\"{}\") failed: {} (code {})", sql_,
                                     sqlite3_errmsg(db.get()), rc),
                         __FILE__, __LINE__);
  }
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  GEMMTUNE_SQLITE_CHECK(db_.get(), sqlite3_bind_int64(stmt_.get(), index, value));
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  GEMMTUNE_SQLITE_CHECK(db_.get(), sqlite3_bind_double(stmt_.get(), index, value));
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  GEMMTUNE_SQLITE_CHECK(db_.get(),
                        sqlite3_bind_text64(stmt_.get(), index, value.data(), value.size(),
                                            SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  GEMMTUNE_SQLITE_CHECK(db_.get(), sqlite3_bind_null(stmt_.get(), index));
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, const std::optional<std::string>& value) {
  return value ? bind(index, std::string_view(*value)) : bind_null(index);
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_failure(
      rc, db_.get(),
      fmt::format("sqlite3_step(\"{}\") failed: {} (code {})", sql_, sqlite3_errmsg(db_.get()), rc),
      __FILE__, __LINE__);
}

void SqliteStatement::run() {
  while (step()) {
  }
}

void SqliteStatement::reset() {
  // sqlite3_reset repeats the last step's error, which step() has already thrown.
  sqlite3_reset(stmt_.get());
  GEMMTUNE_SQLITE_CHECK(db_.get(), sqlite3_clear_bindings(stmt_.get()));
}

std::int64_t SqliteStatement::column_int64(int index) const {
  return sqlite3_column_int64(stmt_.get(), index);
}

double SqliteStatement::column_double(int index) const {
  return sqlite3_column_double(stmt_.get(), index);
}

std::string SqliteStatement::column_text(int index) const {
  const auto* text = sqlite3_column_text(stmt_.get(), index);
  const int bytes = sqlite3_column_bytes(stmt_.get(), index);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(bytes));
}

bool SqliteStatement::column_is_null(int index) const {
  return sqlite3_column_type(stmt_.get(), index) == SQLITE_NULL;
}

SqliteTransaction::SqliteTransaction(SqliteDatabase& db, Mode mode) : db_(db) {
  db_.exec(mode == Mode::Immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

SqliteTransaction::~SqliteTransaction() {
  if (done_) return;
  const int rc = sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK && sqlite3_get_autocommit(db_.get()) == 0) {
    report_error_noexcept(__FILE__, __LINE__,
                          "ROLLBACK failed; the connection is still in a "
                          "transaction");
  }
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gemmtune
