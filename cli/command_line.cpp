#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iterator>

namespace gemmtune::cli {

std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_=./:,+@%") == std::string::npos) {
    return arg;
  }
  std::string out = "'";
  for (const char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string command_line_as_typed() {
  std::ifstream proc("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(proc)), std::istreambuf_iterator<char>());
  std::string out;
  std::size_t start = 0;
  while (start < raw.size()) {
    const std::size_t end = raw.find('\0', start);
    const std::string arg = raw.substr(start, end == std::string::npos ? end : end - start);
    if (!out.empty()) out += ' ';
    out += shell_quoted(arg);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string command_line_of(const CLI::App& cmd) {
  if (std::string typed = command_line_as_typed(); !typed.empty()) return typed;
  std::string out = "gemmtune " + cmd.get_name();
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0) continue;
    // Positionals have no long name and are written as they came.
    if (!opt->get_lnames().empty()) out += " --" + opt->get_lnames().front();
    for (const auto& value : opt->results()) out += " " + shell_quoted(value);
  }
  return out;
}

}  // namespace gemmtune::cli
