#include "db/convert.hpp"

#include <fmt/format.h>

#include "validator/compare.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

std::string list_environments(const std::vector<ResultsTable>& tables) {
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    out += fmt::format("\n  {}: {} ({} entries)", i + 1, describe_environment(tables[i].environment),
                       tables[i].entries.size());
  }
  return out;
}

}  // namespace

ConvertReport convert_store(ResultsStore& from, ResultsStore& to, const ConvertOptions& options,
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
  if (to.kind() == "csv" && tables.size() > 1) {
    throw InputError(fmt::format(
        "{} holds {} environments, but a CSV file holds one; select one of them:{}",
        from.path().string(), tables.size(), list_environments(tables)));
  }
  ConvertReport report;
  for (const auto& table : tables) {
    to.write(table);
    ++report.tables;
    report.entries += table.entries.size();
  }
  return report;
}

ConvertReport convert_file(const std::filesystem::path& from, const std::filesystem::path& to,
                           const ConvertOptions& options, Diagnostics& diagnostics) {
  const auto source = open_results_store(from);
  const auto target = open_results_store(to);
  return convert_store(*source, *target, options, diagnostics);
}

}  // namespace gemmtune
