// Refusing an output that names the same file as another path of the same command (an input it
// reads, or another output): the output would replace it, and a results file replaced by a
// report is a day's tuning gone. Checked before anything is read or measured.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmtune::cli {

struct NamedPath {
  std::string_view option;  // "--output-csv", "--results", "workload", ...
  std::string path;         // empty: not given, never a collision
};

// Whether two paths name one file: the same file where both exist (links, "./" and "../"
// included), else the same absolute path once normalised.
bool same_file(const std::string& a, const std::string& b);

// Throws InputError "OPTION PATH and OPTION PATH name the same file: the output would replace
// it" for the first output that names the same file as another output or any input.
void refuse_outputs_over_others(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs);

}  // namespace gemmtune::cli
