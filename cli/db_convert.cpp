// gemmtune db convert IN OUT: CSV ↔ SQLite, keeping every winner and validator; or, with
// --for-pytorch / --validator, a CSV file that PyTorch TunableOp will load (exactly the given
// validators, only solutions PyTorch understands).
#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <system_error>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/results_view.hpp"
#include "cli/same_file_checks.hpp"
#include "cli/value_checks.hpp"
#include "db/atomic_file.hpp"
#include "db/convert.hpp"
#include "db/results_store.hpp"
#include "tuner/error.hpp"
#include "validator/pytorch_validators.hpp"

namespace gemmtune::cli {
namespace {

struct DbConvertOptions {
  std::string input;
  std::string output;
  std::size_t environment = 0;  // 1-based; 0 = all
  std::string for_pytorch;
  std::vector<std::string> validators;
  bool strict = false;
  bool force = false;
};

// A conversion writes its output whole. It never replaces one of its own inputs (the entries its
// parser skipped would be gone), and replaces an existing file only when asked to: the results in
// it may be all someone has of a day's tuning.
void check_output(const DbConvertOptions& o) {
  for (const std::string* input : {&o.input, &o.for_pytorch}) {
    if (!input->empty() && same_file(o.output, *input)) {
      throw InputError(
          fmt::format("{}: the output is also an input; write to another file", o.output));
    }
  }
  check_can_write(o.output);  // before the input is read: a missing directory, say
  std::error_code ec;
  if (!o.force && std::filesystem::exists(o.output, ec)) {
    throw InputError(fmt::format(
        "{} exists{} and would be replaced; `gemmtune db merge {} {} {}` adds to it, --force "
        "replaces it",
        o.output, empty_file_hint(o.output), o.output, o.output, o.input));
  }
}

bool pytorch_mode(const DbConvertOptions& o) {
  return !o.for_pytorch.empty() || !o.validators.empty();
}

ResultsTable select_table(const LoadedStore& loaded, std::size_t environment) {
  if (environment > 0) {
    if (environment > loaded.tables.size()) {
      throw InputError(fmt::format("--environment {}: {} holds {} environment(s)", environment,
                                   loaded.path.string(), loaded.tables.size()));
    }
    return loaded.tables[environment - 1];
  }
  if (loaded.tables.size() != 1) {
    throw InputError(fmt::format("{} holds {} environments; choose one with --environment N",
                                 loaded.path.string(), loaded.tables.size()));
  }
  return loaded.tables.front();
}

// An input of nothing but bad lines (an untuned file given by mistake) is a failed conversion,
// as in the plain mode: nothing is written.
void require_something_read(const LoadedStore& loaded) {
  if (all_gave_nothing(loaded.tables) && loaded.diagnostics.error_count() > 0) {
    throw InputError(fmt::format("{}: no results could be read ({}); nothing was written",
                                 loaded.path.string(), loaded.diagnostics.summary()));
  }
}

void convert_for_pytorch(const DbConvertOptions& options) {
  if (results_store_kind(options.output) != "csv") {
    throw InputError(fmt::format("{}: PyTorch reads CSV results files only", options.output));
  }
  const LoadedStore loaded = load_store(options.input, options.strict);
  require_something_read(loaded);
  ResultsTable table = select_table(loaded, options.environment);
  Environment validators;
  std::size_t skipped_lines = loaded.diagnostics.error_count();
  if (!options.for_pytorch.empty()) {
    // Its validators are all that is taken from it; its bad lines are printed and make the run
    // partial all the same, since a bad validator line would leave one out.
    const LoadedStore reference = load_store(options.for_pytorch, options.strict);
    require_something_read(reference);
    if (reference.tables.size() > 1) {
      // --environment chooses among the input's, so select_table's advice would not help.
      throw InputError(fmt::format(
          "{}: holds {} environments; a --for-pytorch reference is a results file PyTorch wrote, "
          "which holds one",
          options.for_pytorch, reference.tables.size()));
    }
    validators = select_table(reference, 0).environment;
    skipped_lines += reference.diagnostics.error_count();
    for (const auto& [key, value] : validators.entries()) {
      if (const auto why = why_pytorch_reads_otherwise(value)) {
        throw InputError(fmt::format("{}: validator {} = '{}': {}; nothing was written",
                                     options.for_pytorch, key, value, *why));
      }
    }
  }
  const Environment given = environment_from_assignments(options.validators);
  for (const auto& [key, value] : given.entries()) validators.set(key, value);
  if (!options.for_pytorch.empty() && !validators.contains("PT_VERSION")) {
    throw InputError(fmt::format(
        "{}: holds no PT_VERSION validator (is it a results file PyTorch wrote?), and PyTorch "
        "loads no results file without it: add --validator PT_VERSION=<torch.__version__>",
        options.for_pytorch));
  }
  require_pytorch_version(validators);
  // --for-pytorch means these validators exactly; results measured under other values of the
  // same keys are relabelled, which is worth a word (db merge refuses that without
  // --ignore-validators).
  for (const auto& [key, value] : table.environment.entries()) {
    const auto written = validators.get(key);
    if (written && *written != value) {
      fmt::print(stderr,
                 "note: {} = {} in {}, where the results were measured; written as {} = {}\n", key,
                 value, options.input, key, *written);
    }
  }
  ResultsTable out;
  out.environment = validators;
  std::size_t dropped = 0;
  for (const auto& entry : table.entries) {
    // Left out, not written as Default: PyTorch then runs Default anyway, or tunes the GEMM
    // itself where tuning is on.
    if (const auto why = why_pytorch_cannot_run(entry.solution, validators)) {
      fmt::print(stderr, "left out ({}: {}): {},{}\n", entry.solution, *why, entry.op_signature,
                 entry.params_signature);
      ++dropped;
      continue;
    }
    out.upsert(entry, table.time_text_of(entry));
  }
  // Created anew unless --force: a file made meanwhile (check_output found none) is not replaced.
  write_csv_file(options.output, out, options.force);
  fmt::print("wrote {} entries for PyTorch to {} ({} left out), validators:\n{}",
             out.entries.size(), options.output, dropped, format_validators(out.environment));
  if (skipped_lines > 0) {
    throw ExitWith(ExitCode::Partial,
                   fmt::format("{} bad input line(s) skipped (printed above); the rest was written",
                               skipped_lines));
  }
}

void run_db_convert(const DbConvertOptions& options) {
  check_output(options);
  if (pytorch_mode(options)) {
    convert_for_pytorch(options);
    return;
  }
  Diagnostics diagnostics(options.strict);
  ConvertOptions convert;
  if (options.environment > 0) convert.environment = options.environment;
  convert.replace = options.force;  // a file made while the input is read is refused, too
  const ConvertReport report = convert_file(options.input, options.output, convert, diagnostics);
  if (!diagnostics.empty()) fmt::print(stderr, "{}", diagnostics.format_all());
  fmt::print("converted {} environment(s), {} entries: {} -> {}\n", report.tables, report.entries,
             options.input, options.output);
  if (diagnostics.error_count() > 0) {
    // The output holds what could be read; the lines that could not are printed above.
    throw ExitWith(ExitCode::Partial,
                   fmt::format("{}; the rest was converted", diagnostics.summary()));
  }
}

}  // namespace

void setup_db_convert(CLI::App& db) {
  auto options = std::make_shared<DbConvertOptions>();
  auto* cmd = db.add_subcommand("convert", "Convert a results file between CSV and SQLite");
  cmd->add_option("input", options->input, "Results file to read")
      ->required()
      ->check(results_file_name());
  cmd->add_option("output", options->output, "Results file to write (format by extension)")
      ->required()
      ->check(results_file_name());
  cmd->add_option("--environment", options->environment,
                  "Convert only the N-th environment of a multi-environment database (1-based)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            if (text.find_first_not_of("0123456789") != std::string::npos ||
                text.find_first_not_of('0') == std::string::npos) {
              return "environments are numbered from 1";
            }
            // Not clamped to the largest number: "there is no environment 18446744073709551615"
            // would name a number nobody gave.
            std::size_t n = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            return ec == std::errc() && end == text.data() + text.size()
                       ? std::string()
                       : "environment " + text + " is out of range";
          },
          "N ≥ 1"));
  cmd->add_option("--for-pytorch", options->for_pytorch,
                  "Write for PyTorch TunableOp: use exactly this PyTorch results file's validators")
      ->check(results_file_name());
  cmd->add_option("--validator", options->validators,
                  "Write for PyTorch TunableOp with this validator (KEY=VALUE, repeatable)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            try {
              environment_from_assignments({text});
              return {};
            } catch (const InputError& e) {
              return e.what();
            }
          },
          "KEY=VALUE"));
  cmd->add_flag("--strict", options->strict, "Fail on the first bad line instead of skipping it");
  cmd->add_flag("--force", options->force, "Replace the output file if it exists");
  cmd->callback([options] { run_db_convert(*options); });
}

}  // namespace gemmtune::cli
