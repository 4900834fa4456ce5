#include "tuner/environment.hpp"

#include <algorithm>

namespace gemmtune {

Environment::Environment(std::initializer_list<Entry> entries) {
  for (const auto& [key, value] : entries) set(key, value);
}

void Environment::set(std::string key, std::string value) {
  for (auto& entry : entries_) {
    if (entry.first == key) {
      entry.second = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

void Environment::erase(std::string_view key) {
  std::erase_if(entries_, [&](const Entry& e) { return e.first == key; });
}

std::optional<std::string_view> Environment::get(std::string_view key) const {
  for (const auto& entry : entries_) {
    if (entry.first == key) return std::string_view(entry.second);
  }
  return std::nullopt;
}

bool operator==(const Environment& a, const Environment& b) {
  if (a.size() != b.size()) return false;
  return std::all_of(a.entries_.begin(), a.entries_.end(), [&](const Environment::Entry& e) {
    const auto other = b.get(e.first);
    return other && *other == e.second;
  });
}

}  // namespace gemmtune
