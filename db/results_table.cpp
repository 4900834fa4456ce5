#include "db/results_table.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gemmtune {
namespace {

bool same_key(const ResultEntry& e, std::string_view op, std::string_view params) {
  return e.op_signature == op && e.params_signature == params;
}

}  // namespace

ResultEntry* ResultsTable::find(std::string_view op, std::string_view params) {
  for (auto& e : entries) {
    if (same_key(e, op, params)) return &e;
  }
  return nullptr;
}

const ResultEntry* ResultsTable::find(std::string_view op, std::string_view params) const {
  for (const auto& e : entries) {
    if (same_key(e, op, params)) return &e;
  }
  return nullptr;
}

std::optional<ResultEntry> ResultsTable::upsert(ResultEntry entry,
                                                std::optional<std::string> time_text) {
  ResultKey key{entry.op_signature, entry.params_signature};
  if (time_text) {
    time_texts[key] = TimeText{entry.time_ms, std::move(*time_text)};
  } else {
    time_texts.erase(key);
  }
  if (auto* existing = find(entry.op_signature, entry.params_signature)) {
    std::optional<ResultEntry> old = std::move(*existing);
    *existing = std::move(entry);
    return old;
  }
  entries.push_back(std::move(entry));
  return std::nullopt;
}

std::string ResultsTable::time_text_of(const ResultEntry& entry) const {
  const auto it = time_texts.find(ResultKey{entry.op_signature, entry.params_signature});
  if (it != time_texts.end() && it->second.value == entry.time_ms) return it->second.text;
  return format_time_ms(entry.time_ms);
}

std::string format_time_ms(double time_ms) { return fmt::format("{:g}", time_ms); }

ParsedTime parse_time_ms(std::string_view text) {
  if (text.empty()) return {std::nullopt, "time_ms is missing"};
  if (text.front() == '-') return {std::nullopt, fmt::format("time_ms is negative: '{}'", text)};
  double value = 0;
  const char* first = text.data();
  if (*first == '+') ++first;  // from_chars rejects a leading '+', which strtod accepts
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    return {std::nullopt, fmt::format("time_ms is out of range: '{}'", text)};
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    return {std::nullopt, fmt::format("time_ms is not a number: '{}'", text)};
  }
  if (!std::isfinite(value)) return {std::nullopt, fmt::format("time_ms is not finite: '{}'", text)};
  if (value < 0) return {std::nullopt, fmt::format("time_ms is negative: '{}'", text)};
  return {value, {}};
}

}  // namespace gemmtune
