// The files a configuration is made of: configs/default.toml (the base: tuning knobs and the
// defaults of every subcommand, a neutral [device]), configs/devices/<device>.toml (one per
// device: its peaks and suggested MAMF ranges, and whatever it tunes differently) and a user's
// override file.
//
// Contract:
// - The files of configs/ are compiled in (builtin_config_sources), so that a copied executable
//   still knows them; load_config_sources(DIR) reads DIR/default.toml and DIR/devices/*.toml
//   instead. Origins name the files: "configs/default.toml" for the built-in copies, the path
//   as given for files read from disk.
// - Every device file names its device (device.name) and at least one match term
//   (device.match); a file that does not is an InputError naming it.
// - match_device_layer(): a file matches a device name as DeviceSpec::matches says; where several
//   match, the one with the most match terms wins and equal counts match nothing (no guessing).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/config/config_tree.hpp"

namespace gemmtune {

struct ConfigLayer {
  std::string name;    // "default", a device file's stem ("h100_sxm"), or the user file's path
  std::string origin;  // "configs/default.toml", "configs/devices/h100_sxm.toml", "my.toml"
  ConfigTree tree;
};

struct ConfigSources {
  ConfigLayer base;                  // default.toml
  std::vector<ConfigLayer> devices;  // devices/*.toml, by name
};

// The copies of configs/ compiled into this binary.
const ConfigSources& builtin_config_sources();
// DIR/default.toml (required) and DIR/devices/*.toml (if the folder exists).
ConfigSources load_config_sources(const std::filesystem::path& dir);

// One file, named by its path; InputError when it cannot be read or parsed.
ConfigLayer load_config_file(const std::filesystem::path& file);
// A device file: load_config_file plus the device file's checks.
ConfigLayer load_device_file(const std::filesystem::path& file);

// The device file for `device_name`, or null (none or several equally specific).
const ConfigLayer* match_device_layer(const ConfigSources& sources, std::string_view device_name);
// The device file with this stem; InputError listing the stems there are.
const ConfigLayer& device_layer_named(const ConfigSources& sources, std::string_view stem);

}  // namespace gemmtune
