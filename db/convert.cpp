#include "db/convert.hpp"

#include <fmt/format.h>

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
  // Only now, with the source read: a SQLite target exists from its opening on, and a failed
  // conversion must not leave one behind (a corrected rerun would be refused as replacing it).
  const auto target = open_results_store(to);
  return write_tables(*target, tables);
}

}  // namespace gemmtune
