// Environment: the validators of a results file — key → value pairs describing the software and
// hardware a result was measured on (PT_VERSION, GEMMTUNE_VERSION, CUBLASLT_VERSION, ...).
//
// Insertion order is kept, so that a file's own keys are written back in the order they came.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmtune {

class Environment {
 public:
  using Entry = std::pair<std::string, std::string>;

  Environment() = default;
  Environment(std::initializer_list<Entry> entries);

  // Sets a key, replacing its value in place if it is already present.
  void set(std::string key, std::string value);
  void erase(std::string_view key);
  std::optional<std::string_view> get(std::string_view key) const;
  bool contains(std::string_view key) const { return get(key).has_value(); }

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }

  // Same keys with the same values, in any order.
  friend bool operator==(const Environment& a, const Environment& b);

 private:
  std::vector<Entry> entries_;
};

}  // namespace gemmtune
