#include "validator/compare.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gemmtune {

Comparison compare_environments(const Environment& recorded, const Environment& current,
                                ValidationPolicy policy) {
  Comparison result;
  result.policy = policy;
  for (const auto& [key, value] : recorded.entries()) {
    KeyComparison k{key, KeyStatus::OnlyRecorded, value, std::nullopt};
    if (const auto here = current.get(key)) {
      k.current = std::string(*here);
      k.status = *here == value ? KeyStatus::Match : KeyStatus::Differs;
    }
    result.keys.push_back(std::move(k));
  }
  for (const auto& [key, value] : current.entries()) {
    if (!recorded.contains(key)) {
      result.keys.push_back({key, KeyStatus::OnlyCurrent, std::nullopt, value});
    }
  }
  return result;
}

bool Comparison::is_mismatch(const KeyComparison& key) const {
  if (key.status == KeyStatus::Differs) return true;
  return policy.strict_keys && key.status != KeyStatus::Match;
}

bool Comparison::matches() const {
  return mismatch_count() == 0;
}

std::size_t Comparison::mismatch_count() const {
  return static_cast<std::size_t>(
      std::count_if(keys.begin(), keys.end(), [&](const auto& k) { return is_mismatch(k); }));
}

namespace {

std::string describe(const KeyComparison& k, bool strict, std::string_view other_file) {
  const std::string_view current = other_file.empty() ? "current" : other_file;
  switch (k.status) {
    case KeyStatus::Match:
      return fmt::format("{} = {}", k.key, quote_validator_value(*k.recorded));
    case KeyStatus::Differs:
      return fmt::format("{}: file has '{}', {} has '{}'", k.key, *k.recorded, current, *k.current);
    case KeyStatus::OnlyRecorded:
      // Under strict keys such a key refuses the file: "not checked" would contradict the tag.
      return strict ? fmt::format("{} = {} (recorded in the file; {} lacks it)", k.key,
                                  quote_validator_value(*k.recorded), current)
                    : fmt::format("{} = {} (recorded in the file; {}, so not checked)", k.key,
                                  quote_validator_value(*k.recorded),
                                  other_file.empty() ? std::string("not known here")
                                                     : fmt::format("{} lacks it", other_file));
    case KeyStatus::OnlyCurrent:
      return fmt::format("{}: not recorded in the file ({} has '{}')", k.key, current, *k.current);
  }
  return k.key;
}

}  // namespace

std::string Comparison::explain() const {
  std::string out;
  for (const auto& k : keys) {
    std::string_view tag = is_mismatch(k)                 ? "MISMATCH"
                           : k.status == KeyStatus::Match ? "ok"
                                                          : "unchecked";
    out += fmt::format("  {:<10}{}\n", tag, describe(k, policy.strict_keys, compared_with));
  }
  return out;
}

std::string Comparison::explain_mismatches() const {
  std::string out;
  for (const auto& k : keys) {
    if (is_mismatch(k))
      out += fmt::format("  {}\n", describe(k, policy.strict_keys, compared_with));
  }
  return out;
}

}  // namespace gemmtune

namespace gemmtune {

std::vector<KeyComparison> Comparison::differences() const {
  std::vector<KeyComparison> out;
  for (const auto& k : keys) {
    if (k.status != KeyStatus::Match) out.push_back(k);
  }
  return out;
}

std::string Comparison::summarize_differences(std::string_view recorded_name,
                                              std::string_view current_name) const {
  auto side = [](std::string_view name, const std::optional<std::string>& value) {
    return value ? fmt::format("{} '{}'", name, *value) : fmt::format("{} lacks it", name);
  };
  std::string out;
  for (const auto& k : differences()) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{}: {}, {}", k.key, side(recorded_name, k.recorded),
                       side(current_name, k.current));
  }
  return out;
}

int environment_rank(const Environment& table, const Environment& here) {
  if (table == here) return 2;
  return compare_environments(table, here).matches() ? 1 : 0;
}

std::string quote_validator_value(std::string_view value) {
  const bool padded = !value.empty() && (value.front() == ' ' || value.back() == ' ');
  const bool plain = !value.empty() && !padded && value.find(',') == std::string_view::npos;
  return plain ? std::string(value) : fmt::format("'{}'", value);
}

std::string describe_environment(const Environment& environment) {
  if (environment.empty()) return "no validators";
  std::string out;
  for (const auto& [key, value] : environment.entries()) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}={}", key, quote_validator_value(value));
  }
  return out;
}

}  // namespace gemmtune
