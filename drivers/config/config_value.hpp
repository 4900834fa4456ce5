// ConfigValue: the value of one configuration key — a boolean, an integer, a float, a string or an
// array of those — as the TOML files of configs/ hold it.
//
// Contract:
// - same_value() compares numbers by value across integer and float (100 == 100.0), so that an
//   override cannot dodge the "equal to the base" rule by spelling; everything else compares by
//   kind and content.
// - to_toml() writes a TOML literal that parses back to the same value (floats keep a decimal
//   point, strings are quoted and escaped); to_option_texts() gives the words a command-line
//   option would receive (strings unquoted, one word per array element).
// - An empty string or an empty array is a placeholder: "not set" (see is_unset()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gemmtune {

using ConfigScalar = std::variant<bool, std::int64_t, double, std::string>;
using ConfigArray = std::vector<ConfigScalar>;
using ConfigValue = std::variant<bool, std::int64_t, double, std::string, ConfigArray>;

bool same_value(const ConfigValue& a, const ConfigValue& b);

// "" and [] stand for "not set": the option keeps its built-in default.
bool is_unset(const ConfigValue& value);

// A TOML literal: true, 100, 30.0, "on", [0, 20480, 256].
std::string to_toml(const ConfigValue& value);

// The words an option would get on the command line: "on", "100", "30", {"0", "20480", "256"}.
std::vector<std::string> to_option_texts(const ConfigValue& value);

// A value of the same kind as `like` from an option's words (for recording what the command line
// or the environment set); falls back to a string (or an array of strings) where a word does not
// read as that kind.
ConfigValue value_like(const ConfigValue& like, const std::vector<std::string>& words);

// "boolean", "integer", "float", "string", "array", for messages.
std::string_view kind_name(const ConfigValue& value);

}  // namespace gemmtune
