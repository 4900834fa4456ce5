#include "drivers/config/device_spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return upper(haystack).find(upper(needle)) != std::string::npos;
}

[[noreturn]] void wrong_kind(const ConfigEntry& e, std::string_view wanted) {
  throw InputError(
      fmt::format("{}: {} = {} must be {}", e.origin, e.key, to_toml(e.value), wanted));
}

std::string text_of(const ConfigEntry& e) {
  if (const auto* s = std::get_if<std::string>(&e.value)) return *s;
  wrong_kind(e, "a string");
}

double number_of(const ConfigEntry& e) {
  if (const auto* i = std::get_if<std::int64_t>(&e.value); i && *i >= 0) {
    return static_cast<double>(*i);
  }
  if (const auto* d = std::get_if<double>(&e.value); d && *d >= 0) return *d;
  wrong_kind(e, "a number, 0 or more");
}

std::vector<std::string> strings_of(const ConfigEntry& e) {
  const auto* a = std::get_if<ConfigArray>(&e.value);
  if (!a) wrong_kind(e, "an array of strings");
  std::vector<std::string> out;
  for (const auto& v : *a) {
    const auto* s = std::get_if<std::string>(&v);
    if (!s) wrong_kind(e, "an array of strings");
    out.push_back(*s);
  }
  return out;
}

// [] or [START, STOP, STEP] of integers.
std::vector<std::int64_t> range_of(const ConfigEntry& e) {
  const auto* a = std::get_if<ConfigArray>(&e.value);
  if (!a || !(a->empty() || a->size() == 3)) wrong_kind(e, "[START, STOP, STEP] or []");
  std::vector<std::int64_t> out;
  for (const auto& v : *a) {
    const auto* i = std::get_if<std::int64_t>(&v);
    if (!i || *i < 0) wrong_kind(e, "[START, STOP, STEP] of integers, 0 or more");
    out.push_back(*i);
  }
  return out;
}

}  // namespace

bool DeviceSpec::matches(std::string_view device_name) const {
  if (match.empty()) return false;
  for (const auto& term : match) {
    if (!contains_ci(device_name, term)) return false;
  }
  for (const auto& term : exclude) {
    if (contains_ci(device_name, term)) return false;
  }
  return true;
}

std::optional<double> DeviceSpec::peak_tflops(std::string_view dtype) const {
  const auto it = peak_dense_tflops.find(std::string(dtype));
  if (it == peak_dense_tflops.end() || it->second <= 0) return std::nullopt;
  return it->second;
}

std::string DeviceSpec::suggested_mamf() const {
  std::string out;
  for (const auto& [dim, range] : {std::pair{"m", &mamf_m_range}, std::pair{"n", &mamf_n_range},
                                   std::pair{"k", &mamf_k_range}}) {
    if (range->empty()) continue;
    out += fmt::format("{}--{}_range {}", out.empty() ? "" : " ", dim, fmt::join(*range, " "));
  }
  return out;
}

std::optional<DeviceSpec> device_spec_from(const ConfigTree& config) {
  DeviceSpec spec;
  const std::string peak_prefix = "device.peak_dense_tflops.";
  for (const ConfigEntry* e : config.under("device")) {
    const std::string_view key = e->key;
    if (key == "device.name") {
      spec.name = text_of(*e);
      spec.origin = e->origin;
    } else if (key == "device.match") {
      spec.match = strings_of(*e);
    } else if (key == "device.exclude") {
      spec.exclude = strings_of(*e);
    } else if (key == "device.memory_bandwidth_gb_s") {
      spec.memory_bandwidth_gb_s = number_of(*e);
    } else if (key.rfind(peak_prefix, 0) == 0) {
      spec.peak_dense_tflops[std::string(key.substr(peak_prefix.size()))] = number_of(*e);
    } else if (key == "device.mamf_m_range") {
      spec.mamf_m_range = range_of(*e);
    } else if (key == "device.mamf_n_range") {
      spec.mamf_n_range = range_of(*e);
    } else if (key == "device.mamf_k_range") {
      spec.mamf_k_range = range_of(*e);
    } else if (key == "device.source") {
      spec.source = text_of(*e);
    }
    // Other keys (notes of a user's file) are kept in the configuration, not in the spec.
  }
  if (spec.name.empty() || spec.name == "unknown") return std::nullopt;
  return spec;
}

}  // namespace gemmtune
