// ConfigTree: one configuration — a TOML document of configs/ or a user's file, or several merged
// — flattened to dotted keys ("tune.max_tuning_iterations", "device.peak_dense_tflops.bfloat16"),
// each with its value and the origin (file, "command line", "GEMMTUNE_...") it came from.
//
// Contract:
// - parse() accepts what the configs need: tables (also dotted keys and inline tables) of
//   booleans, integers, floats, strings and flat arrays of those. Invalid TOML, and what TOML
//   allows but a configuration does not (dates, arrays of tables, nested arrays, keys that are
//   not plain words), are InputErrors "ORIGIN:LINE: what", followed by toml11's own excerpt.
// - Entries keep the order of the document (then of later set() calls); render() writes them
//   back as TOML, grouped by table with tables in order of first appearance, optionally with each
//   key's origin as a comment. parse(render(tree)) holds the same keys and values.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/config/config_value.hpp"

namespace gemmtune {

struct ConfigEntry {
  std::string key;  // dotted: "tune.max_tuning_iterations"
  ConfigValue value;
  std::string origin;  // "configs/default.toml", "my.toml", "command line", "GEMMTUNE_SEED"
};

class ConfigTree {
 public:
  // `origin` names the text's file in messages and in every entry.
  static ConfigTree parse(std::string_view toml_text, const std::string& origin);

  const ConfigEntry* find(std::string_view key) const;
  // Replaces the value (and origin) of a key, or appends it.
  void set(const std::string& key, ConfigValue value, const std::string& origin);

  const std::vector<ConfigEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // The entries under a table ("tune" gives tune.*, and "device" device.peak_dense_tflops.* too).
  std::vector<const ConfigEntry*> under(std::string_view table) const;

  // TOML text. `tables`: only keys under these top-level tables, in the tree's order (empty: all).
  // `with_origins`: every key line ends with "# ORIGIN".
  std::string render(bool with_origins, const std::vector<std::string>& tables = {}) const;

 private:
  std::vector<ConfigEntry> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

// "tune.max_tuning_iterations" → "tune"; a key without a dot → "".
std::string_view top_table(std::string_view key);

}  // namespace gemmtune
