// The layered configuration on a subcommand's command line (docs/configuration.md):
// --config FILE, --configs-dir DIR, --device-config NAME and --show-config, and the step that
// feeds the configuration's values into the subcommand's options.
//
// Contract:
// - attach_config(sub, "tune", choice) adds the four options to `sub` and registers CLI11's
//   parse-complete callback of `sub` (so `sub` must not set one itself). That callback runs once
//   the options are parsed, their GEMMTUNE_* variables read and their values stored, and before
//   `sub`'s own callback: it loads configs/default.toml < the device file < the user's file, then
//   gives each key of the [section] table to the option of that name (`max_tuning_iterations` →
//   --max_tuning_iterations or --max-tuning-iterations) unless the command line or the option's
//   environment variable set it. So: default < device < user file < environment < command line.
//   Keys of shared tables go to the option of that name where the subcommand has one
//   (monitor.interval_ms → --monitor-interval-ms).
// - An unset value ("" or []) leaves the option at its built-in default, and so does a value for
//   an option that a given option excludes (--m_range when --m was given; recorded "not
//   applied"). A key that names no option, or a value the option refuses, is an InputError naming
//   the key and its file.
// - Warnings of the merge (keys the base lacks) go to stderr; the changed keys too with
//   --show-config or when hooks.verbose says so. --show-config prints the whole effective
//   configuration as TOML, each key with its origin, and ends the command with exit code 0.
// - Afterwards `choice.text()` is what a report or a database run records, and
//   `choice.device_spec()` the device's peaks.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drivers/config/config_layers.hpp"
#include "drivers/config/device_spec.hpp"

namespace gemmtune::cli {

struct ConfigChoice {
  // From the command line or the environment.
  std::string user_file;               // --config, GEMMTUNE_CONFIG
  std::string configs_dir;             // --configs-dir, GEMMTUNE_CONFIGS_DIR
  std::string device_config = "auto";  // --device-config, GEMMTUNE_DEVICE_CONFIG
  bool show = false;                   // --show-config
  // Set by the parse-complete callback: the subcommand's table, the layers, and what the
  // environment and the command line changed in that table.
  std::string section;
  std::vector<std::string> tables;  // what text() records: the section's, shared ones, "device"
  std::optional<EffectiveConfig> effective;
  std::string device_name;  // the device the layers were chosen for ("" = unknown)

  // The subcommand's table, the shared tables it has options for ([monitor]) and [device], with
  // each key's origin, as TOML; empty when no configuration was loaded.
  std::string text() const;
  // The whole effective configuration with a header naming the layers (--show-config).
  std::string show_text() const;
  // The [device] table as a spec; none when no device is configured.
  std::optional<DeviceSpec> device_spec() const;
};

struct ConfigHooks {
  // The name of the device the subcommand will use, for --device-config auto ("" = unknown).
  std::function<std::string()> device_name;
  // True: load nothing (the worker side of a multi-device run, told everything by its options).
  std::function<bool()> skip;
  // True: print every changed key to stderr, not only the warnings.
  std::function<bool()> verbose;
};

void attach_config(CLI::App& sub, const std::string& section, ConfigChoice& choice,
                   ConfigHooks hooks = {});

// Where a given option's value came from: the configuration file apply_config took it from; its
// environment variable's name, if that is set and holds the value; "command line" otherwise.
std::string option_origin(const CLI::Option& opt);

// The same as a level, lowest first (a configuration file's value gives way to the environment's,
// which gives way to the command line's).
enum class OptionSource { ConfigurationFile, Environment, CommandLine };
OptionSource option_source(const CLI::Option& opt);

// Feeds [section] of `config` into `sub`'s options as attach_config's callback does, and records
// in `config` the values the command line and the environment set (for tests and attach_config).
void apply_config(CLI::App& sub, const std::string& section, ConfigTree& config);

}  // namespace gemmtune::cli
