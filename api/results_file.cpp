#include "api/results_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "db/results_store.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune::api {

namespace {

// A file none of which is used because it cannot be read as a results file: `what` went wrong,
// said at length in the report, and `refusal` on one line (write_file's message). Not "every GEMM
// runs Default": a read_file after results were loaded keeps those.
void refuse_unreadable(LoadedResults& out, const std::string& what, std::string refusal) {
  out.report.accepted = false;
  out.report.unreadable = true;
  out.report.message = fmt::format(
      "{}; none of it is used: its GEMMs run Default (or what an earlier file gave them)", what);
  out.refusal = std::move(refusal);
}

}  // namespace

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
    refuse_unreadable(out, fmt::format("{} could not be read ({})", path, e.what()),
                      fmt::format("it could not be read: {}", e.what()));
    return out;
  }
  r.bad_lines = diagnostics.error_count();
  // Not one line read (a binary, a README under a .csv name): no results file, refused as the
  // docs say, not "accepted, 0 entries", which left its appends to fail later for another reason.
  if (all_gave_nothing(tables) && r.bad_lines > 0) {
    refuse_unreadable(out,
                      fmt::format("{} is not a results file: none of its lines could be read ({})",
                                  path, diagnostics.summary()),
                      fmt::format("none of its lines could be read ({})", diagnostics.summary()));
    return out;
  }
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

void refuse_to_replace_another_environment(const std::string& path, const Environment& current) {
  // A database keeps one table per environment and write_results_file replaces only ours; a CSV
  // file is one environment, replaced whole.
  if (results_store_kind(path) != "csv") return;
  const LoadedResults existing = load_results_file(path, current);
  if (!existing.report.found || existing.report.accepted) return;
  throw InputError(fmt::format(
      "{} is not replaced: {}, and replacing it would lose what it holds. The results this "
      "Context holds are not written there: write them to another file, or to a .db, which keeps "
      "one table per environment",
      path, existing.refusal));
}

namespace {

// A CSV file is one environment, written whole with the Context's validators: a file whose
// validators are not exactly those (PyTorch's PT_VERSION alone, which loads here; none at all)
// would have them replaced, and PyTorch, which loads a file only with exactly its own keys, would
// then ignore it, or its results would be relabelled as measured here. `tune -o` refuses to
// append to such a file for the same reason.
void refuse_other_validators(const std::string& path, const std::vector<ResultsTable>& current,
                             const Environment& ours) {
  for (const ResultsTable& stored : current) {
    if (gave_nothing(stored) || stored.environment == ours) continue;
    const std::string why = stored.environment.empty()
                                ? std::string("it has no Validator lines")
                                : std::string("its validators are not exactly this Context's");
    throw InputError(fmt::format(
        "{} is not replaced: {}; a CSV file holds one environment, and writing this Context's "
        "results there would replace its validators. Write them to another file, or to a .db, "
        "which keeps one table per environment{}",
        path, why,
        stored.environment.empty()
            ? std::string()
            : fmt::format(". Validators (file vs this Context):\n{}",
                          compare_environments(stored.environment, ours).explain())));
  }
}

}  // namespace

std::size_t write_results_file(const std::string& path, const ResultsTable& held,
                               const std::set<ResultKey>& tuned_here) {
  // Read and replaced under the file's append lock (a database: in one transaction), so that what
  // another process appended since this Context read the file, or what a file it never loaded
  // holds, is kept rather than replaced away. Where both hold a problem, this Context's result is
  // written if it tuned the problem; one it only loaded gives way to the file's, which may be
  // newer (a `db merge` into the file meanwhile).
  const bool one_environment = results_store_kind(path) == "csv";
  std::size_t written = 0;
  Diagnostics read;
  open_results_store(path)->update(
      read, [&](std::vector<ResultsTable> current, const Diagnostics& diagnostics) {
        // Checked here, under the lock, on the file as it is now: what it holds that this
        // write cannot carry over must stop it, not be dropped by it.
        if (diagnostics.error_count() > 0) {
          const auto first =
              std::find_if(diagnostics.all().begin(), diagnostics.all().end(),
                           [](const Diagnostic& d) { return d.severity == Severity::Error; });
          throw InputError(fmt::format(
              "{} is not replaced: it holds {} line(s) this Context cannot read, which the file "
              "written would lose. Write to another file, or mend or remove those lines; the "
              "first: {}",
              path, diagnostics.error_count(), format_diagnostic(*first)));
        }
        if (one_environment) refuse_other_validators(path, current, held.environment);
        ResultsTable out;
        out.environment = held.environment;
        for (const ResultsTable& stored : current) {
          // A CSV file is one environment, which refuse_to_replace_another_environment accepted;
          // a database's other environments are not this write's to touch.
          if (!one_environment && !(stored.environment == held.environment)) continue;
          for (const ResultEntry& e : stored.entries) out.upsert(e, stored.time_text_of(e));
        }
        for (const ResultEntry& e : held.entries) {
          const bool ours = tuned_here.count({e.op_signature, e.params_signature}) > 0;
          if (ours || out.find(e.op_signature, e.params_signature) == nullptr) {
            out.upsert(e, held.time_text_of(e));
          }
        }
        written = out.entries.size();
        return std::optional<ResultsTable>(std::move(out));
      });
  return written;
}

}  // namespace gemmtune::api
