#include "drivers/tune_problems.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include <filesystem>

#include "db/atomic_file.hpp"
#include "db/line_end.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune {

RequestedProblems read_requested_problems(const TuneOptions& options, Diagnostics& diagnostics) {
  RequestedProblems requested;
  auto& entries = requested.entries;
  if (!options.inputs.empty()) {
    requested.files = expand_patterns(options.inputs);
    entries = read_untuned_files(requested.files, diagnostics);
  }
  // Every --problem value as a line of one text, so that a message names the value's position
  // ("--problem:3:") and none is taken for a file's truncated last line.
  std::string inline_problems;
  for (const auto& inline_problem : options.problems) inline_problems += inline_problem + "\n";
  for (auto& e : parse_untuned(inline_problems, "--problem", diagnostics)) {
    entries.push_back(std::move(e));
  }
  dedupe_untuned(entries);
  requested.all = entries.size();
  if (!options.shard.active()) return requested;

  std::vector<double> costs;
  std::vector<std::string> keys;
  for (const auto& e : entries) {
    costs.push_back(problem_cost(e.problem));
    keys.push_back(e.op_signature + "," + e.params_signature);
  }
  const auto shares = assign_shares(costs, keys, options.shard.count);
  std::vector<UntunedEntry> mine;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (shares[i] == options.shard.index) mine.push_back(std::move(entries[i]));
  }
  entries = std::move(mine);
  return requested;
}

void require_appendable(const std::filesystem::path& path) {
  check_can_write(path);
  // Results are appended to the file itself (a database's commits too), not put in its place.
  if (std::filesystem::exists(path) && ::access(path.c_str(), W_OK) != 0) {
    throw InputError(fmt::format("{}: cannot be written: {}; nothing was measured", path.string(),
                                 std::strerror(errno)));
  }
}

void add_tuned_signatures(ResultsStore& store, const Environment& environment, SignatureSet& done,
                          Diagnostics* warnings) {
  // Before any tuning: a result measured and then refused at its first save is work thrown away.
  check_can_write(store.path());
  if (!std::filesystem::exists(store.path())) return;
  Diagnostics output_diagnostics;  // bad lines of the output are kept there as they are
  for (const auto& table : store.load(output_diagnostics)) {
    if (table.environment == environment) {
      for (const auto& e : table.entries) done.emplace(e.op_signature, e.params_signature);
      if (warnings != nullptr) {
        for (const Diagnostic& d : output_diagnostics.all()) {
          if (d.severity != Severity::Error) continue;
          warnings->warning(d.file, d.line, d.text,
                            d.message +
                                " (a line of the output: kept as it is; the problem it "
                                "holds, if any, is measured again and appended)");
        }
      }
      return;
    }
    // The rule the first save applies (CsvStore::append): a file that holds nothing is replaced.
    if (store.kind() == "csv" && !holds_nothing(table, output_diagnostics)) {
      if (table.environment.empty() && table.entries.empty()) {
        // Not results of another environment (exit 4): a file that is no results file (exit 3).
        throw InputError(fmt::format(
            "{} holds only lines gemmtune cannot read ({}), and no validators; a CSV file holds "
            "one environment, so nothing was measured. Fix or remove those lines, or write to "
            "another file.",
            store.path().string(), output_diagnostics.summary()));
      }
      // Explained by the rule that refused it, exact equality: a key one side lacks refuses too.
      const auto comparison =
          compare_environments(table.environment, environment, {.strict_keys = true});
      throw ValidatorMismatchError(fmt::format(
          "{} holds results measured in another environment; a CSV file holds one environment, "
          "so nothing was measured. Write to another file or to a SQLite database (.db).{} "
          "Validators:\n{}",
          store.path().string(),
          table.entries.empty() && ends_mid_line(store.path())
              ? " It holds no results and ends mid-line: a creation cut short (a writer killed "
                "while it wrote the header, on a file system without hard links)? Then remove it."
              : "",
          comparison.explain()));
    }
  }
}

}  // namespace gemmtune
