#include "db/environment_diff.hpp"

#include <fmt/format.h>

namespace gemmtune {

std::vector<EnvironmentDifference> environment_differences(const Environment& expected,
                                                           const Environment& actual) {
  std::vector<EnvironmentDifference> out;
  for (const auto& [key, value] : expected.entries()) {
    const auto other = actual.get(key);
    if (!other) {
      out.push_back({key, value, std::nullopt});
    } else if (*other != value) {
      out.push_back({key, value, std::string(*other)});
    }
  }
  for (const auto& [key, value] : actual.entries()) {
    if (!expected.contains(key)) out.push_back({key, std::nullopt, value});
  }
  return out;
}

std::string describe_differences(const std::vector<EnvironmentDifference>& differences,
                                 std::string_view expected_name, std::string_view actual_name) {
  std::string out;
  for (const auto& d : differences) {
    if (!out.empty()) out += "; ";
    auto side = [](std::string_view name, const std::optional<std::string>& value) {
      return value ? fmt::format("{} '{}'", name, *value) : fmt::format("{} lacks it", name);
    };
    out += fmt::format("{}: {}, {}", d.key, side(expected_name, d.expected),
                       side(actual_name, d.actual));
  }
  return out;
}

std::string describe_environment(const Environment& environment) {
  if (environment.empty()) return "no validators";
  std::string out;
  for (const auto& [key, value] : environment.entries()) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", key, value);
  }
  return out;
}

}  // namespace gemmtune
