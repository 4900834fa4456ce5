#include "db/convert.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/csv_results.hpp"
#include "db/sqlite_handle.hpp"
#include "db/sqlite_store.hpp"
#include "db/text_lines.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune {
namespace {

std::string list_environments(const std::vector<ResultsTable>& tables) {
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    out += fmt::format("\n  {}: {} ({} entries)", i + 1,
                       describe_environment(tables[i].environment), tables[i].entries.size());
  }
  return out;
}

// The tables to write, loaded and selected: checked in full before anything is written.
std::vector<ResultsTable> tables_to_convert(ResultsStore& from, bool to_csv,
                                            const ConvertOptions& options,
                                            Diagnostics& diagnostics) {
  std::vector<ResultsTable> tables = from.load(diagnostics);
  if (options.environment) {
    const std::size_t n = *options.environment;
    if (n < 1 || n > tables.size()) {
      throw InputError(fmt::format("{}: there is no environment {}; it holds:{}",
                                   from.path().string(), n, list_environments(tables)));
    }
    ResultsTable chosen = std::move(tables[n - 1]);
    tables.clear();
    tables.push_back(std::move(chosen));
  }
  if (to_csv && tables.size() > 1) {
    throw InputError(
        fmt::format("{} holds {} environments, but a CSV file holds one; select one of them:{}",
                    from.path().string(), tables.size(), list_environments(tables)));
  }
  return tables;
}

ConvertReport write_tables(ResultsStore& to, const std::vector<ResultsTable>& tables) {
  ConvertReport report;
  for (const auto& table : tables) {
    to.write(table);
    ++report.tables;
    report.entries += table.entries.size();
  }
  return report;
}

// The files SQLite keeps beside a database: the write-ahead log, its index, the rollback journal.
constexpr std::array<std::string_view, 3> kSqliteSideFiles{"-wal", "-shm", "-journal"};

void remove_side_files(const std::filesystem::path& database) {
  for (const std::string_view suffix : kSqliteSideFiles) {
    const std::filesystem::path file = database.string() + std::string(suffix);
    std::error_code ec;
    if (!std::filesystem::remove(file, ec) && ec) {
      GEMMTUNE_THROW("cannot remove {}: {}", file.string(), ec.message());
    }
  }
}

// A SQLite target is written whole, as a CSV one is (write_file_atomically): built in a temporary
// database beside it, then renamed over it. So nothing of a file already there survives — `db
// convert --force` replaces it, and its other environments, results, measurements and runs would
// otherwise stay beside the converted ones — whatever it holds (another program's tables, no
// database at all), and a crash leaves the old file or the new one, never a mixture (the old one
// without its -wal file, if the crash comes just before the rename).
[[noreturn]] void refuse_existing(const std::filesystem::path& to) {
  throw InputError(fmt::format(
      "{} exists (made while the source was read?){} and is not replaced; --force replaces it",
      to.string(), empty_file_hint(to)));
}

// Puts the built database `temp` at `to`, where nothing is: created with link(2), which fails
// rather than replace a file made meanwhile. SQLite files left beside a database that is gone would
// be read into the new one, and which writer they belong to cannot be told: they are refused too,
// not removed.
void place_new_database(const std::filesystem::path& temp, const std::filesystem::path& to) {
  for (const std::string_view suffix : kSqliteSideFiles) {
    const std::filesystem::path side = to.string() + std::string(suffix);
    std::error_code ec;
    if (std::filesystem::exists(side, ec)) {
      throw InputError(fmt::format(
          "{}: {} is there, left by a database of that name; --force removes it, or remove it",
          to.string(), side.string()));
    }
  }
  // Its bytes, not the file: create_file_atomically writes and links a temporary of its own.
  if (!create_file_atomically(to, read_file(temp))) refuse_existing(to);
  std::filesystem::remove(temp);
}

ConvertReport write_new_database(const std::filesystem::path& named,
                                 const std::vector<ResultsTable>& tables, bool replace) {
  const auto to = through_links(named);  // the database a link names is replaced, not the link
  const auto temp = temporary_path_for(to);
  try {
    ConvertReport report;
    {
      const auto built = make_sqlite_store(temp);
      report = write_tables(*built, tables);
    }
    {
      // Every commit into the file itself: a -wal file would not follow the rename. The first
      // write to the new database switches it back to WAL.
      SqliteDatabase built(temp);
      built.exec("PRAGMA journal_mode=DELETE");
      GEMMTUNE_EXPECT(built.journal_mode() == "delete", "{} still has a -wal file", temp.string());
    }
    struct stat old {};
    if (::stat(to.c_str(), &old) == 0) {
      std::filesystem::permissions(temp, static_cast<std::filesystem::perms>(old.st_mode & 07777));
    }
    // The old database's -wal (the last commits of a writer that was killed) and -journal would be
    // read into the new database by the name they share, so they go first. A process still writing
    // the old database loses what it writes from now on: replacing it was asked for.
    if (replace) {
      remove_side_files(to);
      rename_durably(temp, to);
    } else {
      place_new_database(temp, to);
    }
    return report;
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    for (const std::string_view suffix : kSqliteSideFiles) {
      std::filesystem::remove(temp.string() + std::string(suffix), ec);
    }
    throw;
  }
}

}  // namespace

ConvertReport convert_store(ResultsStore& from, ResultsStore& to, const ConvertOptions& options,
                            Diagnostics& diagnostics) {
  return write_tables(to, tables_to_convert(from, to.kind() == "csv", options, diagnostics));
}

ConvertReport convert_file(const std::filesystem::path& from, const std::filesystem::path& to,
                           const ConvertOptions& options, Diagnostics& diagnostics) {
  // Opening a SQLite store creates a missing one: a misspelt source would become a new empty
  // database and convert "successfully".
  std::error_code ec;
  if (!std::filesystem::exists(from, ec)) {
    throw InputError(fmt::format("{}: no such file", from.string()));
  }
  const bool to_csv = results_store_kind(to) == "csv";
  const auto source = open_results_store(from);
  const auto tables = tables_to_convert(*source, to_csv, options, diagnostics);
  // Only now, with the source read: a failed conversion must not leave a target behind (a
  // corrected rerun would be refused as replacing it). A source of nothing but bad lines (an
  // untuned file given by mistake) is such a failure: its output would be an empty file.
  if (all_gave_nothing(tables) && diagnostics.error_count() > 0) {
    throw InputError(fmt::format("{}: no results could be read ({}); nothing was written",
                                 from.string(), diagnostics.summary()));
  }
  if (!to_csv) return write_new_database(to, tables, options.replace);
  ConvertReport report;
  for (const auto& table : tables) {  // one at most: a CSV file holds one environment
    write_csv_file(to, table, options.replace);
    ++report.tables;
    report.entries += table.entries.size();
  }
  return report;
}

void write_csv_file(const std::filesystem::path& path, const ResultsTable& table, bool replace) {
  if (replace) {
    write_results_csv(path, table);
  } else if (!create_file_atomically(path, format_results_csv(table))) {
    refuse_existing(path);
  }
}

}  // namespace gemmtune
