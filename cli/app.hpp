// The gemmtune command tree: one file per subcommand registers its options and its action
// (setup_X(app) / run_X(options)); this file assembles them and maps failures to exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gemmtune::cli {

// Builds the whole command tree; the tests read its options to check docs/options.md.
std::unique_ptr<CLI::App> make_app();

// Parses and runs; returns the process exit code (see exit_codes.hpp).
int run(int argc, char** argv);

// The long options of mamf-finder.py that gemmtune mamf takes ("--m", "--dtype", ...): where an
// abbreviation is unique among them, it means what it means to mamf-finder.py.
const std::vector<std::string>& mamf_finder_options();

// Registration functions, one per subcommand file.
void setup_tune(CLI::App& app);
void setup_mamf(CLI::App& app);
void setup_bench(CLI::App& app);
void setup_db_show(CLI::App& db);
void setup_db_check(CLI::App& db);
void setup_db_convert(CLI::App& db);
void setup_db_merge(CLI::App& db);

}  // namespace gemmtune::cli
