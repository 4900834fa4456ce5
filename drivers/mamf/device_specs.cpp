#include "drivers/mamf/device_specs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return upper(haystack).find(upper(needle)) != std::string::npos;
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key, std::string_view origin) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j.at(key).is_array()) throw InputError(fmt::format("{}: '{}' must be a list", origin, key));
  for (const auto& v : j.at(key)) {
    if (!v.is_string()) throw InputError(fmt::format("{}: '{}' must hold strings", origin, key));
    out.push_back(v.get<std::string>());
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
  if (it == peak_dense_tflops.end()) return std::nullopt;
  return it->second;
}

DeviceSpec parse_device_spec(std::string_view json_text, std::string_view origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  if (!j.is_object()) throw InputError(fmt::format("{}: expected a JSON object", origin));
  DeviceSpec spec;
  if (!j.contains("name") || !j.at("name").is_string()) {
    throw InputError(fmt::format("{}: 'name' (a string) is required", origin));
  }
  spec.name = j.at("name").get<std::string>();
  spec.match = strings(j, "match", origin);
  if (spec.match.empty()) throw InputError(fmt::format("{}: 'match' needs at least one term", origin));
  spec.exclude = strings(j, "exclude", origin);
  if (j.contains("memory_bandwidth_gb_s")) {
    if (!j.at("memory_bandwidth_gb_s").is_number()) {
      throw InputError(fmt::format("{}: 'memory_bandwidth_gb_s' must be a number", origin));
    }
    spec.memory_bandwidth_gb_s = j.at("memory_bandwidth_gb_s").get<double>();
  }
  if (!j.contains("peak_dense_tflops") || !j.at("peak_dense_tflops").is_object()) {
    throw InputError(fmt::format("{}: 'peak_dense_tflops' (dtype → TFLOPS) is required", origin));
  }
  for (const auto& [dtype, value] : j.at("peak_dense_tflops").items()) {
    if (!value.is_number() || value.get<double>() <= 0) {
      throw InputError(
          fmt::format("{}: peak_dense_tflops.{} must be a positive number", origin, dtype));
    }
    spec.peak_dense_tflops[dtype] = value.get<double>();
  }
  if (j.contains("suggested_mamf") && j.at("suggested_mamf").is_string()) {
    spec.suggested_mamf = j.at("suggested_mamf").get<std::string>();
  }
  if (j.contains("source") && j.at("source").is_string()) {
    spec.source = j.at("source").get<std::string>();
  }
  return spec;
}

std::vector<DeviceSpec> load_device_specs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError(fmt::format("{}: not a directory of device specs", dir.string()));
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<DeviceSpec> out;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    out.push_back(parse_device_spec(text.str(), file.string()));
  }
  return out;
}

std::optional<DeviceSpec> find_device_spec(const std::vector<DeviceSpec>& specs,
                                           std::string_view device_name) {
  const DeviceSpec* best = nullptr;
  bool tie = false;
  for (const auto& spec : specs) {
    if (!spec.matches(device_name)) continue;
    if (!best || spec.match.size() > best->match.size()) {
      best = &spec;
      tie = false;
    } else if (spec.match.size() == best->match.size()) {
      tie = true;
    }
  }
  if (!best || tie) return std::nullopt;
  return *best;
}

}  // namespace gemmtune::mamf
