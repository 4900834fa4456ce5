// Whether two paths name one file: what keeps an output from replacing an input of the same
// command (cli/same_file_checks) and the Context from recording GEMMs into its results file.
#pragma once

#include <string>

namespace gemmtune {

// The same file where both exist (links, "./" and "../" included), else the same absolute path
// once normalised (a file not there yet).
bool same_file(const std::string& a, const std::string& b);

}  // namespace gemmtune
