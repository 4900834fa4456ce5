// gemmtune db show FILE: the validators and a table of the entries of a results file.
#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "cli/results_view.hpp"
#include "cli/value_checks.hpp"

namespace gemmtune::cli {
namespace {

struct DbShowOptions {
  std::string file;
  bool strict = false;
};

void run_db_show(const DbShowOptions& options) {
  const LoadedStore loaded = load_store(options.file, options.strict);
  fmt::print("{} ({}): {} environment(s)\n", loaded.path.string(), loaded.kind,
             loaded.tables.size());
  int index = 0;
  for (const auto& table : loaded.tables) {
    fmt::print("\nEnvironment {}: {} entries\n{}\n{}", ++index, table.entries.size(),
               format_validators(table.environment), format_entries(table));
  }
  if (loaded.diagnostics.error_count() > 0) {
    throw ExitWith(ExitCode::Partial, loaded.diagnostics.summary());  // the rest is shown
  }
}

}  // namespace

void setup_db_show(CLI::App& db) {
  auto options = std::make_shared<DbShowOptions>();
  auto* cmd = db.add_subcommand("show", "Print the validators and entries of a results file");
  cmd->add_option("file", options->file, "Results file (.csv, .db, .sqlite, .sqlite3)")
      ->required()
      ->check(results_file_name());
  cmd->add_flag("--strict", options->strict, "Fail on the first bad line instead of skipping it");
  cmd->callback([options] { run_db_show(*options); });
}

}  // namespace gemmtune::cli
