#include "cli/option_abbreviations.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <string_view>
#include <utility>

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
  // The option just before, where it takes values and got none with "=": argparse refuses a word
  // that looks like an option there ("argument --notes: expected one argument"), which CLI11
  // would take as the value.
  const CLI::Option* wanting = nullptr;
  std::string wanting_name;
  for (std::size_t i = at + 1; i < args.size(); ++i) {
    std::string& arg = args[i];
    if (arg == "--") break;
    const CLI::Option* before = std::exchange(wanting, nullptr);
    if (!arg.starts_with("--") || arg.size() == 2) continue;
    if (before != nullptr) {
      const int count = before->get_expected_min();
      out.error = fmt::format("argument {}: expected {}", wanting_name,
                              before->get_expected_max() > count ? "at least one argument"
                              : count == 1                       ? "one argument"
                                           : fmt::format("{} arguments", count));
      break;
    }
    const std::size_t equals = arg.find('=');
    const std::string_view typed = std::string_view(arg).substr(0, equals);
    if (!std::binary_search(names.begin(), names.end(), typed)) {
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
    if (equals == std::string::npos) {
      const CLI::Option* option = subcommand.get_option_no_throw(arg);
      if (option != nullptr && option->get_expected_min() > 0) wanting = option, wanting_name = arg;
    }
  }
  out.args = std::move(args);
  return out;
}

}  // namespace gemmtune::cli
