#include "drivers/config/config_layers.hpp"

#include "drivers/config/config_files.hpp"

namespace gemmtune {
namespace {

bool names_a_file(const std::string& choice) {
  return choice.find('/') != std::string::npos ||
         (choice.size() > 5 && choice.compare(choice.size() - 5, 5, ".toml") == 0);
}

}  // namespace

EffectiveConfig load_effective_config(const ConfigRequest& request) {
  ConfigSources loaded;
  if (!request.configs_dir.empty()) loaded = load_config_sources(request.configs_dir);
  const ConfigSources& sources = request.configs_dir.empty() ? builtin_config_sources() : loaded;
  EffectiveConfig out;
  out.tree = sources.base.tree;
  out.layers.push_back(sources.base.origin);

  ConfigLayer own;
  const ConfigLayer* device = nullptr;
  const std::string& choice = request.device_config;
  if (choice == "auto" || choice.empty()) {
    device =
        request.device_name.empty() ? nullptr : match_device_layer(sources, request.device_name);
  } else if (choice == "none") {
    device = nullptr;
  } else if (names_a_file(choice)) {
    own = load_device_file(choice);
    device = &own;
  } else {
    device = &device_layer_named(sources, choice);
  }
  if (device) {
    merge_layer(out.tree, device->tree, out.notes);
    out.layers.push_back(device->origin);
    out.device_layer = device->name;
  }
  if (!request.user_file.empty()) {
    const ConfigLayer user = load_config_file(request.user_file);
    merge_layer(out.tree, user.tree, out.notes);
    out.layers.push_back(user.origin);
  }
  return out;
}

}  // namespace gemmtune
