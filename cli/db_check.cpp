// gemmtune db check FILE: parses a results file, lists its entries, and explains its validators
// against the current environment (or against another results file with --against).
//
// With --resolve it also rebuilds every entry's solution on this machine's backend, as an
// application would dispatch it, and lists the entries that would fall back to Default and why.
//
// Exit: 0 usable here; 4 (validator mismatch) when a validator differs; 5 (partial) when lines
// had to be skipped (the rest is checked); 3 (bad input) when they were not, under --strict.
#include <fmt/format.h>

#include <optional>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/number_checks.hpp"
#include "cli/results_view.hpp"
#include "cli/tuning_options.hpp"
#include "cli/value_checks.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/solution_resolver.hpp"
#include "tuner/error.hpp"
#include "validator/collect.hpp"
#include "validator/compare.hpp"

namespace gemmtune::cli {
namespace {

struct DbCheckOptions {
  std::string file;
  std::string against;
  std::string backend = "auto";
  int device = 0;
  bool strict = false;
  bool strict_keys = false;
  bool resolve = false;
  // The Context's default and type: whole MiB, GEMMTUNE_WORKSPACE_MB as it reads it (a fraction
  // there is warned about and ignored, so here it is refused rather than used).
  std::size_t workspace_mb = 32;
};

struct Reference {
  std::string description;
  Environment environment;
  std::size_t bad_lines = 0;  // of the --against file: skipped, and the check ends partial
};

// `session` is null when comparing --against another file without --resolve.
Reference reference_environment(const DbCheckOptions& options, const BackendSession* session) {
  if (!options.against.empty()) {
    const LoadedStore other = load_store(options.against, options.strict);
    if (other.tables.size() != 1) {
      throw InputError(fmt::format("--against {}: holds {} environments; give a file with one",
                                   options.against, other.tables.size()));
    }
    // A file without Validator lines (an untuned file given by mistake) has nothing to compare
    // with: against it, every file would read as usable.
    if (other.tables.front().environment.empty()) {
      throw InputError(fmt::format(
          "--against {}: has no Validator lines to compare with{}", options.against,
          other.diagnostics.error_count() > 0 ? fmt::format(" ({})", other.diagnostics.summary())
                                              : std::string()));
    }
    return {fmt::format("{}", options.against), other.tables.front().environment,
            other.diagnostics.error_count()};
  }
  const auto& props = session->backend->properties();
  return {fmt::format("the current environment ({} device {}: {})", props.backend, props.ordinal,
                      props.name),
          collect_environment(*session->backend)};
}

// Rebuilds each entry's solution as an application would; prints what falls back to Default.
void print_dispatch(const ResultsTable& table, const BackendSession& session,
                    const SearchOptions& limits) {
  const std::string& backend = session.backend->properties().backend;
  std::size_t rebuilt = 0, fell_back = 0, unparsed = 0;
  for (const auto& e : table.entries) {
    Problem problem;
    try {
      problem = parse_problem(e.op_signature, e.params_signature);
    } catch (const InputError&) {
      ++unparsed;
      continue;
    }
    // Under the application's workspace limit: only which algorithm Default picks depends on
    // it (GemmAndBias, ScaledGemm), not whether a stored name rebuilds.
    const ResolvedSolution resolved =
        resolve_solution(*session.registry, backend, problem, e.solution, limits);
    if (resolved.fell_back) {
      ++fell_back;
      fmt::print("  falls back: {}\n", resolved.warning);
    } else {
      ++rebuilt;
    }
  }
  fmt::print(
      "Dispatch on {} (workspace limit {:g} MiB): {} entries run their stored solution, {} fall "
      "back to {}, {} of a kind this version cannot parse\n\n",
      backend, static_cast<double>(limits.max_workspace_bytes) / (1024.0 * 1024.0), rebuilt,
      fell_back, kDefaultSolutionName, unparsed);
}

void run_db_check(const DbCheckOptions& options) {
  const LoadedStore loaded = load_store(options.file, options.strict);
  std::optional<BackendSession> session;
  if (options.against.empty() || options.resolve) {
    session = open_backend(parse_backend_kind(options.backend), options.device);
  }
  const Reference reference = reference_environment(options, session ? &*session : nullptr);
  std::size_t mismatched_tables = 0;
  int index = 0;
  for (const auto& table : loaded.tables) {
    fmt::print("{} ({}), environment {} of {}: {} entries\n\n{}\n", loaded.path.string(),
               loaded.kind, ++index, loaded.tables.size(), table.entries.size(),
               format_entries(table));
    Comparison comparison = compare_environments(table.environment, reference.environment,
                                                 {.strict_keys = options.strict_keys});
    if (!options.against.empty()) comparison.compared_with = options.against;
    if (options.resolve) {
      SearchOptions limits;
      limits.max_workspace_bytes = workspace_bytes(static_cast<double>(options.workspace_mb));
      print_dispatch(table, *session, limits);
    }
    fmt::print("Validators against {}:\n{}", reference.description, comparison.explain());
    if (comparison.matches()) {
      fmt::print("=> usable: no validator differs\n");
      // Loading and appending differ: `tune -o` appends to a CSV file (one environment) only when
      // its validators are exactly the run's.
      if (options.against.empty() && loaded.kind == "csv" &&
          !(table.environment == reference.environment)) {
        fmt::print(
            "   (loaded as it is; but `gemmtune tune -o {}` would not append to it: its validators "
            "are not exactly this environment's, and a CSV file holds one. Tune into another file "
            "or a .db)\n",
            loaded.path.string());
      }
      fmt::print("\n");
    } else {
      ++mismatched_tables;
      fmt::print("=> REFUSED: {} validator(s) differ; gemmtune will not use these results here\n\n",
                 comparison.mismatch_count());
    }
  }
  // Which environments are usable, so that the line never reads as all well beside a refusal.
  fmt::print("Summary: {} environment(s): {} usable, {} refused; {}\n", loaded.tables.size(),
             loaded.tables.size() - mismatched_tables, mismatched_tables,
             loaded.diagnostics.summary());
  if (mismatched_tables > 0) {
    throw ExitWith(ExitCode::ValidatorMismatch, fmt::format("{}: validators differ from {}",
                                                            options.file, reference.description));
  }
  if (loaded.diagnostics.error_count() > 0) {
    throw ExitWith(ExitCode::Partial, loaded.diagnostics.summary());  // the rest is checked
  }
  if (reference.bad_lines > 0) {
    throw ExitWith(ExitCode::Partial,
                   fmt::format("--against {}: {} bad line(s) skipped (printed above)",
                               options.against, reference.bad_lines));
  }
}

}  // namespace

void setup_db_check(CLI::App& db) {
  auto options = std::make_shared<DbCheckOptions>();
  auto* cmd = db.add_subcommand(
      "check", "Parse a results file and explain its validators against this machine");
  cmd->add_option("file", options->file, "Results file (.csv, .db, .sqlite, .sqlite3)")
      ->required()
      ->check(results_file_name());
  cmd->add_option("--against", options->against,
                  "Compare with the validators of this results file instead of this machine")
      ->check(results_file_name());
  cmd->add_option("--backend", options->backend, "Backend whose environment to compare with")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->envname("GEMMTUNE_BACKEND")
      ->capture_default_str();
  cmd->add_option("--device", options->device, "Device ordinal")
      ->envname("GEMMTUNE_DEVICE")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd->add_flag("--strict", options->strict, "Fail on the first bad line instead of skipping it");
  cmd->add_flag("--strict-keys", options->strict_keys,
                "Also refuse when the two sides have different validator keys (PyTorch's rule)");
  cmd->add_flag("--resolve", options->resolve,
                "Rebuild every entry's solution on this machine and list those that would fall "
                "back to Default");
  cmd->add_option("--workspace-mb", options->workspace_mb,
                  "--resolve: the workspace limit the application runs under, which Default "
                  "(cuBLASLt's heuristic pick for GemmAndBias and ScaledGemm) is rebuilt under "
                  "(whole MiB, as the Context reads it; at most 1048576 = 1 TiB)")
      ->envname("GEMMTUNE_WORKSPACE_MB")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
              return {};
            }
            return fmt::format(
                "whole MiB, as the Context reads GEMMTUNE_WORKSPACE_MB (which ignores '{}')", text);
          },
          "WHOLE_MIB"))
      ->check(workspace_mb_value())
      ->capture_default_str();
  cmd->callback([options] { run_db_check(*options); });
}

}  // namespace gemmtune::cli
