// Refusing a report output that would replace something worth more than the report: the same
// file as another path of the same command (an input it reads, or another output), or a file
// that holds tuning results or recorded GEMMs. A results file replaced by a report is a day's
// tuning gone. Checked before anything is read or measured.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "db/same_file.hpp"

namespace gemmtune::cli {

struct NamedPath {
  std::string_view option;  // "--output-csv", "--results", "workload", ...
  std::string path;         // empty: not given, never a collision
};

// Throws InputError "OPTION PATH and OPTION PATH name the same file: the output would replace
// it" for the first output that names the same file as another output or any input.
void refuse_outputs_over_others(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs);

// Throws InputError "OPTION PATH holds ...: a report would replace it" for the first output
// that exists and is a SQLite database, a results CSV file (its first line a `Validator` line)
// or an untuned file (its first line a TunableOp signature): a report written there by mistake
// (`--output-csv` and `--results` swapped) must not cost the tuning. A report of an earlier run,
// or any other file, may be replaced.
void refuse_outputs_over_results(const std::vector<NamedPath>& outputs);

}  // namespace gemmtune::cli
