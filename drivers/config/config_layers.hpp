// The effective configuration: configs/default.toml, then the device file, then the user's file,
// each laid over the ones before by merge_layer's rules (FlagPerf's). The command line and the
// GEMMTUNE_* environment come on top of these, option by option, in the CLI
// (cli/config_options.hpp): default < device < user file < environment < command line.
//
// Contract:
// - The device layer is chosen by ConfigRequest::device_config: "auto" (the device file matching
//   `device_name`; none when nothing or several match), "none", a device file's stem
//   ("h100_sxm"), or the path of a .toml file (a device file of one's own).
// - Every way a file or a layer can be wrong is an InputError naming the file (and the key).
#pragma once

#include <string>
#include <vector>

#include "drivers/config/config_merge.hpp"
#include "drivers/config/config_tree.hpp"

namespace gemmtune {

struct ConfigRequest {
  std::string configs_dir;             // empty: the built-in copies of configs/
  std::string device_config = "auto";  // auto, none, a device file's stem, or a .toml path
  std::string device_name;             // the device to match for auto ("": none)
  std::string user_file;               // empty: none
};

struct EffectiveConfig {
  ConfigTree tree;
  std::vector<std::string> layers;  // origins, lowest first
  std::string device_layer;         // the device file's stem (or path); empty: none
  MergeNotes notes;                 // from the device and user layers
};

EffectiveConfig load_effective_config(const ConfigRequest& request);

}  // namespace gemmtune
