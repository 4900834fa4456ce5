#include "drivers/config/config_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <toml.hpp>
#include <tuple>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

struct Leaf {
  std::uint_least32_t line = 0;
  std::uint_least32_t column = 0;
  std::string key;
  ConfigValue value;
};

bool plain_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

[[noreturn]] void refuse(const std::string& origin, const toml::value& at, std::string_view what) {
  throw InputError(fmt::format("{}:{}: {}", origin, at.location().line(), what));
}

ConfigScalar scalar(const toml::value& v, const std::string& origin, const std::string& key) {
  switch (v.type()) {
    case toml::value_t::boolean:
      return v.as_boolean();
    case toml::value_t::integer:
      return static_cast<std::int64_t>(v.as_integer());
    case toml::value_t::floating:
      return static_cast<double>(v.as_floating());
    case toml::value_t::string:
      return static_cast<std::string>(v.as_string());
    default:
      refuse(origin, v,
             fmt::format("{}: a {} is not a configuration value (use booleans, numbers, strings "
                         "and flat arrays of those)",
                         key, toml::stringize(v.type())));
  }
}

void flatten(const toml::value& table, const std::string& prefix, const std::string& origin,
             std::vector<Leaf>& out) {
  for (const auto& [name, v] : table.as_table()) {
    if (!plain_word(name)) {
      refuse(origin, v,
             fmt::format("key \"{}{}\": keys are plain words (letters, digits, _ and -)", prefix,
                         name));
    }
    const std::string key = prefix + name;
    if (v.is_table()) {
      flatten(v, key + ".", origin, out);
    } else if (v.is_array()) {
      ConfigArray array;
      for (const auto& element : v.as_array()) {
        if (element.is_array() || element.is_table()) {
          refuse(
              origin, element,
              fmt::format("{}: arrays of arrays or of tables are not configuration values", key));
        }
        array.push_back(scalar(element, origin, key));
      }
      out.push_back({v.location().line(), v.location().column(), key, std::move(array)});
    } else {
      out.push_back(
          {v.location().line(), v.location().column(), key,
           std::visit([](auto&& s) -> ConfigValue { return s; }, scalar(v, origin, key))});
    }
  }
}

// "table" and "leaf" of a dotted key.
std::pair<std::string_view, std::string_view> split_key(std::string_view key) {
  const auto dot = key.rfind('.');
  if (dot == std::string_view::npos) return {{}, key};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

}  // namespace

std::string_view top_table(std::string_view key) {
  const auto dot = key.find('.');
  return dot == std::string_view::npos ? std::string_view() : key.substr(0, dot);
}

ConfigTree ConfigTree::parse(std::string_view toml_text, const std::string& origin) {
  toml::value document;
  try {
    std::istringstream in{std::string(toml_text)};
    document = toml::parse(in, origin);
  } catch (const toml::exception& e) {
    std::string what = e.what();
    if (what.rfind("[error] ", 0) == 0) what.erase(0, 8);
    throw InputError(fmt::format("{}:{}: not valid TOML: {}", origin, e.location().line(), what));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: not valid TOML: {}", origin, e.what()));
  }
  std::vector<Leaf> leaves;
  flatten(document, "", origin, leaves);
  std::stable_sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  ConfigTree tree;
  for (auto& leaf : leaves) tree.set(leaf.key, std::move(leaf.value), origin);
  return tree;
}

const ConfigEntry* ConfigTree::find(std::string_view key) const {
  const auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

void ConfigTree::set(const std::string& key, ConfigValue value, const std::string& origin) {
  if (const auto it = index_.find(key); it != index_.end()) {
    entries_[it->second].value = std::move(value);
    entries_[it->second].origin = origin;
    return;
  }
  index_.emplace(key, entries_.size());
  entries_.push_back({key, std::move(value), origin});
}

std::vector<const ConfigEntry*> ConfigTree::under(std::string_view table) const {
  std::vector<const ConfigEntry*> out;
  for (const auto& e : entries_) {
    if (e.key.size() > table.size() && e.key.compare(0, table.size(), table) == 0 &&
        e.key[table.size()] == '.') {
      out.push_back(&e);
    }
  }
  return out;
}

std::string ConfigTree::render(bool with_origins, const std::vector<std::string>& tables) const {
  // Tables in order of first appearance, each with its keys in order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ConfigEntry*>, std::less<>> by_table;
  for (const auto& e : entries_) {
    if (!tables.empty() &&
        std::find(tables.begin(), tables.end(), top_table(e.key)) == tables.end()) {
      continue;
    }
    const std::string table(split_key(e.key).first);
    auto [it, added] = by_table.try_emplace(table);
    if (added) order.push_back(table);
    it->second.push_back(&e);
  }
  // Keys outside any table must come before the first header.
  std::stable_partition(order.begin(), order.end(), [](const std::string& t) { return t.empty(); });
  std::string out;
  for (const auto& table : order) {
    if (!table.empty()) out += fmt::format("{}[{}]\n", out.empty() ? "" : "\n", table);
    for (const ConfigEntry* e : by_table[table]) {
      const std::string line = fmt::format("{} = {}", split_key(e->key).second, to_toml(e->value));
      out += with_origins ? fmt::format("{:<40}  # {}\n", line, e->origin) : line + "\n";
    }
  }
  return out;
}

}  // namespace gemmtune
