// The command line a report records: what was typed, read back from /proc/self/cmdline, each
// argument quoted for a POSIX shell where it needs it, so that the line can be pasted to rerun.
#pragma once

#include <string>

namespace gemmtune::cli {

// `arg` as a shell word: unchanged when it holds only safe characters, else in single quotes.
std::string shell_quoted(const std::string& arg);

// This process's arguments, shell-quoted and joined; empty where /proc/self/cmdline is missing.
std::string command_line_as_typed();

}  // namespace gemmtune::cli
