// Checks of option values that gemmtune parses itself (numbers: cli/number_checks.hpp).
//
// A value that is parsed only after the command line — a numerical check, a shard, a dtype, a
// provider — would be refused as an InputError, exit 3, which says a file was bad. Checked as the
// option is parsed instead, a value from the command line or the option's GEMMTUNE_* variable is
// a usage error (exit 2) naming the option, and one from a configuration file is bad input naming
// the key and the file (cli/config_options.hpp turns the option's refusal into that), as
// docs/configuration.md says.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace gemmtune::cli {

// A check that runs `parse`, which throws InputError for a value it cannot use; the InputError's
// message becomes the usage error's (less a leading "--option: ", which CLI11 adds itself).
// `description` is what --help shows as the value's form.
CLI::Validator parsed_by(std::string description, std::function<void(const std::string&)> parse);

// on, off or ATOL_RTOL (tuner/numerical_check.hpp).
CLI::Validator numerical_check_value();

// A provider that some backend of this build has (tuner/registry.hpp). Whether the run's backend
// has it is known only once the device is chosen (auto: CUDA where a GPU is present): a name of
// another backend's provider is still refused then, as bad input, before anything is tuned.
CLI::Validator provider_name();

// A results file's name: .csv, or .db, .sqlite, .sqlite3 (SQLite), in any letter case
// (db/results_store.hpp), so that `-o results.txt` is a usage error before anything runs. An empty
// value is left to the option (in a configuration file it means "not set"), and a directory to the
// store ("is a directory, not a results file", bad input, whatever its name).
CLI::Validator results_file_name();

}  // namespace gemmtune::cli
