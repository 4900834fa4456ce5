#include "db/results_table.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace gemmtune {
namespace {

bool same_key(const ResultEntry& e, std::string_view op, std::string_view params) {
  return e.op_signature == op && e.params_signature == params;
}

// Both signatures, the first one's length in front, so that no two pairs share a key whatever
// bytes a file's signatures hold.
std::string index_key(std::string_view op, std::string_view params) {
  std::string key = fmt::format("{}:", op.size());
  key.reserve(key.size() + op.size() + params.size());
  key.append(op).append(params);
  return key;
}

}  // namespace

const ResultEntry* ResultsTable::indexed(std::string_view op, std::string_view params) const {
  const auto rebuild = [&] {
    index_by_key.clear();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      // The first of equal entries, as a search from the front finds.
      index_by_key.try_emplace(index_key(entries[i].op_signature, entries[i].params_signature), i);
    }
  };
  if (index_by_key.size() != entries.size()) rebuild();
  const std::string key = index_key(op, params);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto it = index_by_key.find(key);
    if (it == index_by_key.end()) break;
    if (it->second < entries.size() && same_key(entries[it->second], op, params)) {
      return &entries[it->second];
    }
    rebuild();  // entries removed or moved without upsert(): the index is stale
  }
  if (index_by_key.size() == entries.size()) return nullptr;
  // Equal entries (added without upsert()) leave the index short: search them all.
  for (const auto& e : entries) {
    if (same_key(e, op, params)) return &e;
  }
  return nullptr;
}

ResultEntry* ResultsTable::find(std::string_view op, std::string_view params) {
  return const_cast<ResultEntry*>(indexed(op, params));
}

const ResultEntry* ResultsTable::find(std::string_view op, std::string_view params) const {
  return indexed(op, params);
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
  const bool in_step = index_by_key.size() == entries.size();
  entries.push_back(std::move(entry));
  if (in_step) {
    index_by_key.try_emplace(
        index_key(entries.back().op_signature, entries.back().params_signature),
        entries.size() - 1);
  }
  return std::nullopt;
}

std::string ResultsTable::time_text_of(const ResultEntry& entry) const {
  const auto it = time_texts.find(ResultKey{entry.op_signature, entry.params_signature});
  if (it != time_texts.end() && it->second.value == entry.time_ms) return it->second.text;
  return format_time_ms(entry.time_ms);
}

std::string format_time_ms(double time_ms) {
  return fmt::format("{:g}", time_ms);
}

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
  if (!std::isfinite(value))
    return {std::nullopt, fmt::format("time_ms is not finite: '{}'", text)};
  if (value < 0) return {std::nullopt, fmt::format("time_ms is negative: '{}'", text)};
  return {value, {}};
}

}  // namespace gemmtune
