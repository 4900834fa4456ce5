#include "drivers/config/config_value.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "tuner/quoted_string.hpp"

namespace gemmtune {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

std::optional<double> as_number(const ConfigScalar& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

bool same_scalar(const ConfigScalar& a, const ConfigScalar& b) {
  const auto x = as_number(a);
  const auto y = as_number(b);
  if (x && y) return *x == *y;
  return a == b;
}

ConfigScalar scalar_of(const ConfigValue& v) {
  return std::visit(Overloaded{[](const ConfigArray&) -> ConfigScalar { return std::string(); },
                               [](const auto& x) -> ConfigScalar { return x; }},
                    v);
}

std::string float_toml(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", d);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string scalar_toml(const ConfigScalar& v) {
  return std::visit(Overloaded{[](bool b) { return std::string(b ? "true" : "false"); },
                               [](std::int64_t i) { return fmt::format("{}", i); },
                               [](double d) { return float_toml(d); },
                               [](const std::string& s) { return quoted_string(s); }},
                    v);
}

std::string scalar_text(const ConfigScalar& v) {
  return std::visit(Overloaded{[](bool b) { return std::string(b ? "true" : "false"); },
                               [](std::int64_t i) { return fmt::format("{}", i); },
                               [](double d) { return fmt::format("{}", d); },
                               [](const std::string& s) { return s; }},
                    v);
}

std::optional<std::int64_t> read_integer(std::string_view s) {
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return out;
}

std::optional<double> read_float(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double d = std::stod(s, &used);
    if (used != s.size()) return std::nullopt;
    return d;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<bool> read_bool(std::string_view s) {
  if (s == "true" || s == "1" || s == "on" || s == "yes") return true;
  if (s == "false" || s == "0" || s == "-1" || s == "off" || s == "no") return false;
  return std::nullopt;
}

// A word as the number it spells, or as itself.
ConfigScalar infer(const std::string& word) {
  if (auto i = read_integer(word)) return *i;
  if (auto d = read_float(word)) return *d;
  return word;
}

ConfigScalar scalar_like(const ConfigScalar& like, const std::string& word) {
  if (const auto* s = std::get_if<std::string>(&like); s && s->empty()) return infer(word);
  if (std::holds_alternative<bool>(like)) {
    if (auto b = read_bool(word)) return *b;
  } else if (std::holds_alternative<std::int64_t>(like)) {
    if (auto i = read_integer(word)) return *i;
    if (auto d = read_float(word)) return *d;
  } else if (std::holds_alternative<double>(like)) {
    if (auto d = read_float(word)) return *d;
  }
  return word;
}

// An array's element kind is that of its first element; an empty array reads numbers as numbers.
ConfigScalar element_like(const ConfigArray& like, const std::string& word) {
  return like.empty() ? infer(word) : scalar_like(like.front(), word);
}

}  // namespace

bool same_value(const ConfigValue& a, const ConfigValue& b) {
  const auto* x = std::get_if<ConfigArray>(&a);
  const auto* y = std::get_if<ConfigArray>(&b);
  if (x || y) {
    if (!x || !y || x->size() != y->size()) return false;
    for (std::size_t i = 0; i < x->size(); ++i) {
      if (!same_scalar((*x)[i], (*y)[i])) return false;
    }
    return true;
  }
  return same_scalar(scalar_of(a), scalar_of(b));
}

bool is_unset(const ConfigValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return s->empty();
  if (const auto* a = std::get_if<ConfigArray>(&value)) return a->empty();
  return false;
}

std::string to_toml(const ConfigValue& value) {
  if (const auto* a = std::get_if<ConfigArray>(&value)) {
    std::string out = "[";
    for (std::size_t i = 0; i < a->size(); ++i) out += (i ? ", " : "") + scalar_toml((*a)[i]);
    return out + "]";
  }
  return scalar_toml(scalar_of(value));
}

std::vector<std::string> to_option_texts(const ConfigValue& value) {
  std::vector<std::string> out;
  if (const auto* a = std::get_if<ConfigArray>(&value)) {
    for (const auto& v : *a) out.push_back(scalar_text(v));
  } else {
    out.push_back(scalar_text(scalar_of(value)));
  }
  return out;
}

ConfigValue value_like(const ConfigValue& like, const std::vector<std::string>& words) {
  if (const auto* a = std::get_if<ConfigArray>(&like)) {
    ConfigArray out;
    for (const auto& w : words) out.push_back(element_like(*a, w));
    return out;
  }
  if (words.size() != 1) {
    ConfigArray out;
    for (const auto& w : words) out.push_back(w);
    return out;
  }
  return std::visit([](auto&& s) -> ConfigValue { return s; },
                    scalar_like(scalar_of(like), words[0]));
}

std::string_view kind_name(const ConfigValue& value) {
  return std::visit(Overloaded{[](bool) { return std::string_view("boolean"); },
                               [](std::int64_t) { return std::string_view("integer"); },
                               [](double) { return std::string_view("float"); },
                               [](const std::string&) { return std::string_view("string"); },
                               [](const ConfigArray&) { return std::string_view("array"); }},
                    value);
}

}  // namespace gemmtune
