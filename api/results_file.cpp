#include "api/results_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "db/results_store.hpp"
#include "validator/compare.hpp"

namespace gemmtune::api {

LoadedResults load_results_file(const std::string& path, const Environment& current) {
  LoadedResults out;
  LoadReport& r = out.report;
  r.file = path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    r.found = false;
    r.message =
        fmt::format("{}: no results file yet; every GEMM runs Default until one is tuned", path);
    return out;
  }
  r.found = true;
  std::vector<ResultsTable> tables;
  Diagnostics diagnostics;  // bad lines are skipped; the rest of the file is used
  try {
    auto store = open_results_store(path);
    tables = store->load(diagnostics);
  } catch (const std::exception& e) {
    r.accepted = false;
    // Not "every GEMM runs Default": a read_file after results were loaded keeps those.
    r.message = fmt::format(
        "{} could not be read ({}); none of it is used: its GEMMs run Default (or what an "
        "earlier file gave them)",
        path, e.what());
    out.refusal = fmt::format("it could not be read: {}", e.what());
    return out;
  }
  r.bad_lines = diagnostics.error_count();
  // This machine's own table where a database has one; else the first that matches it (one
  // with fewer keys, as PyTorch's PT_VERSION alone, matches every machine).
  const ResultsTable* accepted = nullptr;
  int accepted_rank = 0;
  for (const auto& t : tables) {
    const int rank = environment_rank(t.environment, current);
    if (rank > accepted_rank) accepted = &t, accepted_rank = rank;
  }
  if (accepted == nullptr && !tables.empty()) {
    const Comparison differences = compare_environments(tables.front().environment, current);
    r.accepted = false;
    r.message = fmt::format(
        "{} was measured in another environment, and none of it is used: its GEMMs run Default "
        "(or what an earlier file gave them). "
        "Validators (file vs this machine):\n{}",
        path, differences.explain());
    std::string mismatches;  // the keys that refuse it; keys one side lacks are noise here
    for (const auto& k : differences.keys) {
      if (!differences.is_mismatch(k)) continue;
      if (!mismatches.empty()) mismatches += "; ";
      mismatches += fmt::format("{}: file '{}', this machine '{}'", k.key, k.recorded.value_or(""),
                                k.current.value_or(""));
    }
    out.refusal = fmt::format("it was measured in another environment ({})", mismatches);
    return out;
  }
  if (accepted != nullptr) out.table = *accepted;
  if (r.bad_lines > 0) {
    r.message = fmt::format("{}: {} (the rest of the file is used)\n{}", path,
                            diagnostics.summary(), diagnostics.format_all());
  }
  return out;
}

}  // namespace gemmtune::api
