// The command line a report records: what was typed, read back from /proc/self/cmdline, each
// argument quoted for a POSIX shell where it needs it, so that the line can be pasted to rerun.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gemmtune::cli {

// `arg` as a shell word: unchanged when it holds only safe characters, else in single quotes.
std::string shell_quoted(const std::string& arg);

// This process's arguments, shell-quoted and joined; empty where /proc/self/cmdline is missing.
std::string command_line_as_typed();

// What a run records as its command line: command_line_as_typed(), or where /proc/self/cmdline is
// unavailable, "gemmtune <subcommand>" rebuilt from the options `cmd` parsed.
std::string command_line_of(const CLI::App& cmd);

}  // namespace gemmtune::cli
