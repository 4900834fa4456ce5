#include "cli/option_abbreviations.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <string_view>

namespace gemmtune::cli {
namespace {

std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The names of `names` that begin with `prefix`.
std::vector<std::string> beginning_with(std::string_view prefix,
                                        const std::vector<std::string>& names) {
  std::vector<std::string> matches;
  for (const std::string& name : names) {
    if (name.starts_with(prefix)) matches.push_back(name);
  }
  return matches;
}

}  // namespace

ExpandedArguments expand_abbreviations(const CLI::App& subcommand,
                                       const std::vector<std::string>& preferred,
                                       std::vector<std::string> args) {
  ExpandedArguments out;
  // The subcommand is the first word that is not an option of the program itself.
  std::size_t at = 1;
  while (at < args.size() && args[at].starts_with("-")) ++at;
  if (at >= args.size() || args[at] != subcommand.get_name()) {
    out.args = std::move(args);
    return out;
  }
  const std::vector<std::string> names = long_names(subcommand);
  for (std::size_t i = at + 1; i < args.size(); ++i) {
    std::string& arg = args[i];
    if (arg == "--") break;
    if (!arg.starts_with("--") || arg.size() == 2) continue;
    const std::size_t equals = arg.find('=');
    const std::string_view typed = std::string_view(arg).substr(0, equals);
    if (std::binary_search(names.begin(), names.end(), typed)) continue;
    std::vector<std::string> matches = beginning_with(typed, preferred);
    if (matches.empty()) matches = beginning_with(typed, names);
    if (matches.size() > 1) {
      out.error =
          fmt::format("ambiguous option: {} could match {}", typed, fmt::join(matches, ", "));
      break;
    }
    if (matches.size() == 1) {
      arg = matches.front() + (equals == std::string::npos ? "" : arg.substr(equals));
    }
  }
  out.args = std::move(args);
  return out;
}

}  // namespace gemmtune::cli
