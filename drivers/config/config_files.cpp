#include "drivers/config/config_files.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "drivers/config/device_spec.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace config_detail {
std::vector<std::pair<const char*, const char*>> builtin_config_texts();  // generated
}  // namespace config_detail
namespace {

std::string stem_of(std::string_view origin) {
  return std::filesystem::path(origin).stem().string();
}

void check_device_layer(const ConfigLayer& layer) {
  const auto spec = device_spec_from(layer.tree);
  if (!spec || spec->origin != layer.origin) {
    throw InputError(
        fmt::format("{}: a device file names its device (device.name = \"...\")", layer.origin));
  }
  if (spec->match.empty()) {
    throw InputError(fmt::format(
        "{}: a device file needs match terms (device.match = [\"H100\"]) to be chosen by",
        layer.origin));
  }
}

ConfigLayer device_layer(std::string origin, std::string_view text) {
  ConfigLayer layer{stem_of(origin), origin, ConfigTree::parse(text, origin)};
  check_device_layer(layer);
  return layer;
}

std::string read_text(const std::filesystem::path& file) {
  // An ifstream opens a directory without complaint and reads it as empty: a configuration
  // that would set nothing, silently.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a configuration file", file.string()));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot read this configuration file: {}", file.string(),
                                 std::strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

const ConfigSources& builtin_config_sources() {
  static const ConfigSources sources = [] {
    const auto texts = config_detail::builtin_config_texts();
    ConfigSources out;
    out.base = {"default", texts.front().first,
                ConfigTree::parse(texts.front().second, texts.front().first)};
    for (std::size_t i = 1; i < texts.size(); ++i) {
      out.devices.push_back(device_layer(texts[i].first, texts[i].second));
    }
    return out;
  }();
  return sources;
}

ConfigSources load_config_sources(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError(fmt::format("{}: not a directory of configuration files", dir.string()));
  }
  ConfigSources out;
  const auto base = dir / "default.toml";
  if (!std::filesystem::exists(base, ec)) {
    throw InputError(
        fmt::format("{}: missing (a configs directory holds default.toml and "
                    "devices/*.toml)",
                    base.string()));
  }
  out.base = load_config_file(base);
  out.base.name = "default";
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir / "devices", ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir / "devices")) {
      if (entry.path().extension() == ".toml") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) out.devices.push_back(load_device_file(file));
  return out;
}

ConfigLayer load_config_file(const std::filesystem::path& file) {
  const std::string origin = file.string();
  return {origin, origin, ConfigTree::parse(read_text(file), origin)};
}

ConfigLayer load_device_file(const std::filesystem::path& file) {
  return device_layer(file.string(), read_text(file));
}

const ConfigLayer* match_device_layer(const ConfigSources& sources, std::string_view device_name) {
  const ConfigLayer* best = nullptr;
  std::size_t best_terms = 0;
  bool tie = false;
  for (const auto& layer : sources.devices) {
    const auto spec = device_spec_from(layer.tree);
    if (!spec || !spec->matches(device_name)) continue;
    if (!best || spec->match.size() > best_terms) {
      best = &layer;
      best_terms = spec->match.size();
      tie = false;
    } else if (spec->match.size() == best_terms) {
      tie = true;
    }
  }
  return tie ? nullptr : best;
}

const ConfigLayer& device_layer_named(const ConfigSources& sources, std::string_view stem) {
  for (const auto& layer : sources.devices) {
    if (layer.name == stem) return layer;
  }
  std::vector<std::string> names;
  for (const auto& layer : sources.devices) names.push_back(layer.name);
  throw InputError(
      fmt::format("--device-config {}: no such device file (there are: {}; or auto, "
                  "none, or a path to a .toml file)",
                  stem, fmt::join(names, ", ")));
}

}  // namespace gemmtune
