#include "db/results_store.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "db/csv_store.hpp"
#include "db/sqlite_store.hpp"
#include "tuner/error.hpp"

namespace gemmtune {

std::vector<ResultsTable> ResultsStore::load() {
  Diagnostics strict(/*strict=*/true);
  return load(strict);
}

void ResultsStore::update_environments(Diagnostics& diagnostics,
                                       const UpdateEnvironments& produce) {
  update(diagnostics,
         [&](std::vector<ResultsTable> current,
             const Diagnostics& read) -> std::optional<ResultsTable> {
           std::vector<ResultsTable> tables = produce(std::move(current), read);
           if (tables.empty()) return std::nullopt;
           if (tables.size() > 1) {
             GEMMTUNE_THROW("{}: {} environments to write into a {} store, which holds one",
                            path().string(), tables.size(), kind());
           }
           return std::move(tables.front());
         });
}

bool ResultsStore::holds(const Environment& environment, std::string_view op_signature,
                         std::string_view params_signature) {
  if (!std::filesystem::exists(path())) return false;
  Diagnostics diagnostics;  // bad lines hold nothing
  for (const auto& table : load(diagnostics)) {
    if (table.environment == environment) {
      return table.find(op_signature, params_signature) != nullptr;
    }
  }
  return false;
}

namespace {

std::string lowercase_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

bool is_sqlite_path(const std::filesystem::path& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".db" || ext == ".sqlite" || ext == ".sqlite3";
}

std::string_view results_store_kind(const std::filesystem::path& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".csv") return "csv";
  if (is_sqlite_path(path)) return "sqlite";
  throw InputError(fmt::format(
      "{}: unknown results store type '{}'; use .csv (PyTorch TunableOp CSV) or .db, .sqlite, "
      ".sqlite3 (SQLite)",
      path.string(), ext.empty() ? "(no extension)" : ext));
}

std::unique_ptr<ResultsStore> open_results_store(const std::filesystem::path& path) {
  // Said as what it is: otherwise "unknown results store type" (no extension) or SQLite's
  // "unable to open database file" (a directory named .db).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a results file", path.string()));
  }
  if (results_store_kind(path) == "csv") return make_csv_store(path);
  return make_sqlite_store(path);
}

bool holds_nothing(const ResultsTable& table, const Diagnostics& diagnostics) {
  return gave_nothing(table) && diagnostics.error_count() == 0;
}

bool gave_nothing(const ResultsTable& table) {
  return table.environment.empty() && table.entries.empty();
}

bool all_gave_nothing(const std::vector<ResultsTable>& tables) {
  return std::all_of(tables.begin(), tables.end(), gave_nothing);
}

std::string format_timestamp(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

}  // namespace gemmtune
