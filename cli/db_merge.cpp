// gemmtune db merge OUT IN...: gathers winners from several results files (an existing OUT
// included) into OUT; conflicts go to the faster time and are reported; a file measured in a
// different environment is refused with the differing validators and exit code 4.
#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/results_view.hpp"
#include "db/merge.hpp"
#include "db/results_store.hpp"
#include "validator/compare.hpp"

namespace gemmtune::cli {
namespace {

struct DbMergeOptions {
  std::string output;
  std::vector<std::string> inputs;
  bool strict = false;
  bool ignore_validators = false;
};

void add_sources(std::vector<MergeSource>& sources, const std::string& path, bool strict) {
  LoadedStore loaded = load_store(path, strict);
  if (loaded.diagnostics.error_count() > 0) {
    throw ExitWith(ExitCode::BadInput,
                   fmt::format("{}: {}; nothing was merged", path, loaded.diagnostics.summary()));
  }
  for (auto& table : loaded.tables) {
    // A blank file (an output created beforehand with `touch`) has no environment: as the first
    // source it would refuse every other one. It adds nothing, and the output replaces it.
    if (holds_nothing(table, loaded.diagnostics)) continue;
    sources.push_back({path, std::move(table)});
  }
}

void run_db_merge(const DbMergeOptions& options) {
  std::vector<MergeSource> sources;
  // Merging into an existing file keeps what it already holds.
  if (std::filesystem::exists(options.output)) add_sources(sources, options.output, options.strict);
  for (const auto& input : options.inputs) add_sources(sources, input, options.strict);
  if (options.ignore_validators) {
    // The user vouches that the results are interchangeable: they are merged under the first
    // source's validators, and every difference is still said.
    for (auto& source : sources) {
      const Comparison c =
          compare_environments(sources.front().table.environment, source.table.environment);
      if (!c.differences().empty()) {
        fmt::print(stderr, "warning: merging {} despite different validators: {}\n", source.name,
                   c.summarize_differences(sources.front().name, source.name));
        source.table.environment = sources.front().table.environment;
      }
    }
  }
  MergeResult merged = merge_tables(sources);
  for (const auto& conflict : merged.conflicts) fmt::print("conflict: {}\n", conflict.describe());
  for (const auto& refused : merged.refused) {
    fmt::print(stderr, "refused: {}\n", refused.describe(sources.front().name));
  }
  open_results_store(options.output)->write(merged.table);
  fmt::print(
      "merged {} source(s) into {}: {} entries, {} conflict(s) resolved by the faster "
      "time, {} source(s) refused\n",
      sources.size() - merged.refused.size(), options.output, merged.table.entries.size(),
      merged.conflicts.size(), merged.refused.size());
  if (!merged.refused.empty()) {
    throw ExitWith(ExitCode::ValidatorMismatch,
                   "some inputs were measured in a different environment and were not merged");
  }
}

}  // namespace

void setup_db_merge(CLI::App& db) {
  auto options = std::make_shared<DbMergeOptions>();
  auto* cmd = db.add_subcommand("merge", "Merge results files; the faster time wins conflicts");
  cmd->add_option("output", options->output, "Results file to write (kept entries if it exists)")
      ->required();
  cmd->add_option("inputs", options->inputs, "Results files to merge")->required();
  cmd->add_flag("--strict", options->strict, "Fail on the first bad line instead of skipping it");
  cmd->add_flag("--ignore-validators", options->ignore_validators,
                "Merge files measured in other environments too, under the first file's "
                "validators");
  cmd->callback([options] { run_db_merge(*options); });
}

}  // namespace gemmtune::cli
