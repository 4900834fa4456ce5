// gemmtune db merge OUT IN...: gathers winners from several results files (an existing OUT
// included) into OUT; conflicts go to the faster time and are reported. A CSV OUT holds one
// environment: a file measured in a different one is refused with the differing validators and
// exit code 4. A database OUT keeps each environment's results in its own table. OUT is read and
// replaced in one ResultsStore::update per environment, so that a result a tuning run appends to
// it meanwhile is merged too, not lost.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/results_view.hpp"
#include "cli/value_checks.hpp"
#include "db/atomic_file.hpp"
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

// The sources a store's tables give: a table that holds nothing (an output created beforehand with
// `touch`) has no environment, and as the first source it would refuse every other one. It adds
// nothing, and the output replaces it.
// An input's bad lines are skipped (printed as it was read; the run ends partial, exit 5), but the
// output's are not: it is rewritten, and the lines it could not read would be lost with it. So an
// input of nothing but bad lines (an untuned file given by mistake) is no source either: its empty
// environment would refuse the others, or become an environment of its own in a database.
void add_tables(std::vector<MergeSource>& sources, const std::string& path,
                std::vector<ResultsTable> tables, const Diagnostics& diagnostics, bool is_output) {
  if (is_output && diagnostics.error_count() > 0) {
    throw ExitWith(ExitCode::BadInput,
                   fmt::format("{}: {} in the output, which a merge rewrites: those lines would be "
                               "lost; fix or move them (nothing was merged)",
                               path, diagnostics.summary()));
  }
  // A database of several environments gives one source each, named by number (as `db show`
  // and `db convert --environment N` number them), so that a refusal says which.
  const bool several = tables.size() > 1;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (holds_nothing(tables[i], diagnostics) || (!is_output && gave_nothing(tables[i]))) continue;
    sources.push_back(
        {several ? fmt::format("{} (environment {})", path, i + 1) : path, std::move(tables[i])});
  }
}

struct Merged {
  std::vector<MergeSource> sources;
  MergeResult result;
  std::vector<std::string> warnings;
};

// Merges `sources` in their order, after --ignore-validators has put them under the first one's
// validators. The warnings are printed by the caller: this may run more than once (update()).
Merged merge_sources(const DbMergeOptions& options, std::vector<MergeSource> sources) {
  Merged merged;
  merged.sources = std::move(sources);
  if (options.ignore_validators && !merged.sources.empty()) {
    // The user vouches that the results are interchangeable: they are merged under the first
    // source's validators, and every difference is still said.
    const auto& first = merged.sources.front();
    for (auto& source : merged.sources) {
      const Comparison c = compare_environments(first.table.environment, source.table.environment);
      if (!c.differences().empty()) {
        merged.warnings.push_back(
            fmt::format("warning: merging {} despite different validators: {}\n", source.name,
                        c.summarize_differences(first.name, source.name)));
        source.table.environment = first.table.environment;
      }
    }
  }
  merged.result = merge_tables(merged.sources);
  return merged;
}

// The inputs' sources by environment, in the order each environment first appears.
std::vector<std::vector<MergeSource>> by_environment(std::vector<MergeSource> sources) {
  std::vector<std::vector<MergeSource>> groups;
  for (auto& source : sources) {
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return g.front().table.environment == source.table.environment;
    });
    if (group == groups.end()) {
      groups.emplace_back();
      group = std::prev(groups.end());
    }
    group->push_back(std::move(source));
  }
  return groups;
}

void run_db_merge(const DbMergeOptions& options) {
  check_can_write(options.output);  // before the inputs are read: a missing directory, say
  // The inputs are only read: what is appended to one meanwhile is not lost, just not merged.
  std::vector<MergeSource> inputs;
  std::size_t skipped_lines = 0;
  for (const auto& input : options.inputs) {
    LoadedStore loaded = load_store(input, options.strict);
    skipped_lines += loaded.diagnostics.error_count();
    add_tables(inputs, input, std::move(loaded.tables), loaded.diagnostics, false);
  }
  // A CSV file holds one environment: the first source's, and the others are refused. A database
  // holds any number, one table each: the inputs of each environment are merged into that
  // environment's table (with --ignore-validators, all into the first environment's), and the
  // output's other environments are left as they are.
  const bool database = results_store_kind(options.output) == "sqlite";
  if (inputs.empty()) {
    std::error_code ec;
    fmt::print("nothing to merge: the inputs hold no results; {} was {}\n", options.output,
               std::filesystem::exists(options.output, ec) ? "left as it was" : "not made");
    if (skipped_lines > 0) {
      throw ExitWith(ExitCode::Partial,
                     fmt::format("{} bad input line(s) skipped (printed above)", skipped_lines));
    }
    return;
  }
  std::vector<std::vector<MergeSource>> groups;
  if (database && !options.ignore_validators) {
    groups = by_environment(std::move(inputs));
  } else {
    groups.push_back(std::move(inputs));
  }

  // Merging into an existing output keeps what it holds: its tables come first (a conflict's tie
  // keeps them), read and replaced in one update, so that no result a tuning run appends to it
  // meanwhile is lost.
  std::vector<Merged> merged;
  bool output_printed = false;
  Diagnostics output_diagnostics(options.strict);
  open_results_store(options.output)
      ->update_environments(output_diagnostics, [&](std::vector<ResultsTable> current,
                                                    const Diagnostics& diagnostics) {
        if (!output_printed && !diagnostics.empty()) {
          fmt::print(stderr, "{}", diagnostics.format_all());
        }
        output_printed = true;
        merged.clear();  // update_environments may run this again
        std::vector<ResultsTable> tables;
        for (const auto& group : groups) {
          std::vector<ResultsTable> into;
          if (!database) {
            into = std::move(current);
          } else {
            const Environment& target = options.ignore_validators && !current.empty()
                                            ? current.front().environment
                                            : group.front().table.environment;
            for (auto& table : current) {
              if (table.environment == target) into.push_back(std::move(table));
            }
          }
          std::vector<MergeSource> sources;
          add_tables(sources, options.output, std::move(into), diagnostics, true);
          sources.insert(sources.end(), group.begin(), group.end());
          merged.push_back(merge_sources(options, std::move(sources)));
          tables.push_back(merged.back().result.table);
        }
        return tables;
      });
  std::size_t sources = 0, entries = 0, conflicts = 0, refused = 0;
  for (const auto& m : merged) {
    for (const auto& warning : m.warnings) fmt::print(stderr, "{}", warning);
    for (const auto& conflict : m.result.conflicts) {
      fmt::print("conflict: {}\n", conflict.describe());
    }
    for (const auto& r : m.result.refused) {
      fmt::print(stderr, "refused: {}\n", r.describe(m.sources.front().name));
    }
    sources += m.sources.size() - m.result.refused.size();
    entries += m.result.table.entries.size();
    conflicts += m.result.conflicts.size();
    refused += m.result.refused.size();
  }
  fmt::print(
      "merged {} source(s) into {}: {} entries{}, {} conflict(s) resolved by the faster "
      "time, {} source(s) refused\n",
      sources, options.output, entries,
      database ? fmt::format(" in the {} environment(s) merged into", merged.size())
               : std::string(),
      conflicts, refused);
  if (refused > 0) {
    throw ExitWith(ExitCode::ValidatorMismatch,
                   "some inputs were measured in a different environment and were not merged "
                   "(a CSV file holds one environment: merge each into a file of its own, or "
                   "into a database, which keeps each environment's results apart)");
  }
  if (skipped_lines > 0) {
    throw ExitWith(ExitCode::Partial,
                   fmt::format("{} bad input line(s) skipped (printed above); the rest was merged",
                               skipped_lines));
  }
}

}  // namespace

void setup_db_merge(CLI::App& db) {
  auto options = std::make_shared<DbMergeOptions>();
  auto* cmd = db.add_subcommand("merge", "Merge results files; the faster time wins conflicts");
  cmd->add_option("output", options->output, "Results file to write (kept entries if it exists)")
      ->required()
      ->check(results_file_name());
  cmd->add_option("inputs", options->inputs, "Results files to merge")
      ->required()
      ->check(results_file_name());
  cmd->add_flag("--strict", options->strict, "Fail on the first bad line instead of skipping it");
  cmd->add_flag("--ignore-validators", options->ignore_validators,
                "Merge files measured in other environments too, under the first file's "
                "validators");
  cmd->callback([options] { run_db_merge(*options); });
}

}  // namespace gemmtune::cli
