// argparse's abbreviated long options, for the subcommand that takes mamf-finder.py's command
// lines: argparse accepts any prefix of a long option that names only one ("--num_iter" for
// "--num_iterations", "--m_r" for "--m_range"), and scripts written for mamf-finder.py may use
// them. CLI11 has no such rule, so the arguments are written out in full before it parses them.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gemmtune::cli {

struct ExpandedArguments {
  std::vector<std::string> args;  // argv with each abbreviation written out
  std::string error;  // argparse's message (an ambiguous prefix, a missing value); empty if none
};

// For the arguments of `subcommand` (where args[1..] name it first, after any options of the
// program itself), every "--PREFIX" or "--PREFIX=VALUE" up to a "--" that is not one of its long
// options but begins exactly one of them becomes that option. The options of the other tool
// (`preferred`: "--dtype", ...) are matched first, and the rest only where none of those begins
// the prefix, so that a prefix unique among that tool's options means what it means there ("--d"
// is --dtype, beside gemmtune's --db). A prefix that begins several is an error naming them, as
// argparse's ("ambiguous option: --num could match --num_iterations, --num_warmup_iterations");
// one that begins none is left for the parser to refuse. Other subcommands' arguments are
// returned unchanged. A word that starts with "--" right after an option that takes values (and
// was given none with "=") is an error, as argparse's ("argument --notes: expected one argument"),
// where CLI11 would take it as the value.
ExpandedArguments expand_abbreviations(const CLI::App& subcommand,
                                       const std::vector<std::string>& preferred,
                                       std::vector<std::string> args);

}  // namespace gemmtune::cli
