#include "db/sqlite_handle.hpp"

#include <fmt/format.h>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr int kBusyTimeoutMs = 5000;

}  // namespace

void sqlite_check(int rc, sqlite3* db, std::string_view call, const char* file, int line) {
  if (rc == SQLITE_OK) return;
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw_error(file, line, fmt::format("{} failed: {} (code {})", call, message, rc));
}

void SqliteDatabase::Closer::operator()(sqlite3* db) const noexcept {
  // close_v2 defers the close until statements are finalized instead of failing.
  const int rc = sqlite3_close_v2(db);
  if (rc != SQLITE_OK) {
    report_error_noexcept(__FILE__, __LINE__, "sqlite3_close_v2 failed");
  }
}

SqliteDatabase::SqliteDatabase(const std::filesystem::path& path) : path_(path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                     SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  db_.reset(raw);  // a handle is returned even on failure, and must be closed
  if (rc != SQLITE_OK) {
    throw_error(__FILE__, __LINE__,
                fmt::format("sqlite3_open_v2({}) failed: {} (code {})", path.string(),
                            raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc), rc));
  }
  sqlite3_extended_result_codes(raw, 1);
  GEMMTUNE_SQLITE_CHECK(raw, sqlite3_busy_timeout(raw, kBusyTimeoutMs));
  // WAL lets readers and a writer proceed together. synchronous=FULL fsyncs the WAL at every
  // commit (NORMAL would not), so a committed result survives power loss, as append() promises.
  exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
}

void SqliteDatabase::exec(std::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    GEMMTUNE_THROW("sqlite3_exec(\"{}\") failed on {}: {} (code {})", text, path_.string(),
                   message, rc);
  }
}

SqliteStatement::SqliteStatement(SqliteDatabase& db, std::string_view sql) : db_(db), sql_(sql) {
  sqlite3_stmt* raw = nullptr;
  const int rc = sqlite3_prepare_v2(db.get(), sql_.c_str(), static_cast<int>(sql_.size()) + 1,
                                    &raw, nullptr);
  stmt_.reset(raw);
  if (rc != SQLITE_OK) {
    GEMMTUNE_THROW("sqlite3_prepare_v2(\"{}\") failed: {} (code {})", sql_,
                   sqlite3_errmsg(db.get()), rc);
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
  GEMMTUNE_THROW("sqlite3_step(\"{}\") failed: {} (code {})", sql_, sqlite3_errmsg(db_.get()), rc);
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
    report_error_noexcept(__FILE__, __LINE__, "ROLLBACK failed; the connection is still in a "
                                              "transaction");
  }
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gemmtune
