#include "cli/config_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "cli/exit_codes.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cli {
namespace {

// The options attach_config adds: a configuration cannot set them.
constexpr const char* kOwnOptions[] = {"config", "configs-dir", "device-config", "show-config"};

// Keys of shared tables, and the option that takes each where a subcommand has it.
constexpr std::pair<const char*, const char*> kSharedKeys[] = {
    {"monitor.interval_ms", "monitor-interval-ms"},
};

CLI::Option* option_for(CLI::App& sub, const std::string& name) {
  if (auto* opt = sub.get_option_no_throw("--" + name)) return opt;
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return sub.get_option_no_throw("--" + dashed);
}

// The option `name` of `sub` that a configuration may set; null for none, a positional, a hidden
// option, --help, or one of the configuration's own options.
CLI::Option* settable_option(CLI::App& sub, const std::string& name) {
  if (name.find('.') != std::string::npos) return nullptr;
  CLI::Option* opt = option_for(sub, name);
  // Hidden options (a worker's --worker) and --help are the program's, not settings.
  if (opt == nullptr || opt->get_lnames().empty() || opt->get_group().empty() ||
      opt == sub.get_help_ptr() || opt == sub.get_help_all_ptr() ||
      std::any_of(std::begin(kOwnOptions), std::end(kOwnOptions),
                  [&](const char* o) { return opt->get_lnames().front() == o; })) {
    return nullptr;
  }
  return opt;
}

// Whether `key` ("tune.backend") names an option that a configuration can set, of the subcommand
// its table is named after. default.toml leaves out options with no default worth recording there
// (an output, a device, a shard); a user's file that sets one has not misspelt it.
bool names_settable_option(CLI::App& any_command, const std::string& key) {
  const auto dot = key.find('.');
  // A dashed key is refused where its table applies (keys are written with underscores).
  if (dot == std::string::npos || key.find('-') != std::string::npos) return false;
  CLI::App* root = &any_command;
  while (root->get_parent() != nullptr) root = root->get_parent();
  for (CLI::App* sub : root->get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == key.substr(0, dot)) {
      return settable_option(*sub, key.substr(dot + 1)) != nullptr;
    }
  }
  return false;
}

bool is_flag(const CLI::Option& opt) {
  return opt.get_expected_max() == 0;
}

// The given option that excludes `opt` (--m for --m_range, say), or null.
const CLI::Option* excluded_by(const CLI::Option& opt) {
  const std::set<CLI::Option*> excludes = opt.get_excludes();  // a copy
  const auto it = std::find_if(excludes.begin(), excludes.end(),
                               [](const CLI::Option* o) { return o->count() > 0; });
  return it == excludes.end() ? nullptr : *it;
}

// The options apply_config gave a value, with the configuration file it came from and what it
// set (so that a later option at the same address, in another parse, is not taken for one).
struct ConfigApplied {
  std::string origin;
  std::vector<std::string> results;
};
std::map<const CLI::Option*, ConfigApplied>& config_applied() {
  static std::map<const CLI::Option*, ConfigApplied> applied;
  return applied;
}

}  // namespace

namespace {

// Where an option's value came from, as a level and as the name of its source.
struct Provenance {
  OptionSource source;
  std::string origin;
};

Provenance provenance(const CLI::Option& opt) {
  if (const auto it = config_applied().find(&opt);
      it != config_applied().end() && it->second.results == opt.results()) {
    return {OptionSource::ConfigurationFile, it->second.origin};
  }
  const std::string& env = opt.get_envname();
  if (!env.empty()) {
    const char* value = std::getenv(env.c_str());
    if (value != nullptr && *value != '\0') {
      // A list option (--devices 0,2) holds its environment value split at its delimiter.
      const std::vector<std::string>& results = opt.results();
      std::string joined;
      for (const auto& r : results) {
        joined += (joined.empty() ? "" : std::string(1, opt.get_delimiter())) + r;
      }
      if (results == std::vector<std::string>{value} ||
          (opt.get_delimiter() != '\0' && joined == value)) {
        return {OptionSource::Environment, env};
      }
    }
  }
  return {OptionSource::CommandLine, "command line"};
}

}  // namespace

OptionSource option_source(const CLI::Option& opt) {
  return provenance(opt).source;
}

std::string option_origin(const CLI::Option& opt) {
  return provenance(opt).origin;
}

std::string ConfigChoice::text() const {
  if (!effective) return {};
  return effective->tree.render(true, tables);
}

std::string ConfigChoice::show_text() const {
  if (!effective) return {};
  std::string out = fmt::format(
      "# gemmtune {}: effective configuration\n# layers: {} < environment "
      "< command line\n",
      section, fmt::join(effective->layers, " < "));
  if (!device_name.empty()) {
    out += fmt::format("# device: {} ({})\n", device_name,
                       effective->device_layer.empty() ? "no device file matches"
                                                       : "device file " + effective->device_layer);
  }
  return out + "\n" + effective->tree.render(true);
}

std::optional<DeviceSpec> ConfigChoice::device_spec() const {
  if (!effective) return std::nullopt;
  return device_spec_from(effective->tree);
}

void apply_config(CLI::App& sub, const std::string& section, ConfigTree& config) {
  // What an earlier parse of these options took from a configuration is not this parse's.
  for (const CLI::Option* opt : sub.get_options()) config_applied().erase(opt);
  std::vector<std::pair<ConfigEntry, CLI::Option*>> work;
  for (const ConfigEntry* e : config.under(section)) {
    const std::string name = e->key.substr(section.size() + 1);
    if (name.find('-') != std::string::npos) {
      // It would find its option, and lose to the key of default.toml, spelt with underscores,
      // that sets the same option first.
      std::string underscored = name;
      std::replace(underscored.begin(), underscored.end(), '-', '_');
      throw InputError(fmt::format("{}: {}: configuration keys are written with underscores: {}",
                                   e->origin, e->key, underscored));
    }
    CLI::Option* opt = settable_option(sub, name);
    if (opt == nullptr) {
      throw InputError(
          fmt::format("{}: {} names no option of gemmtune {} that a configuration "
                      "can set",
                      e->origin, e->key, sub.get_name()));
    }
    work.emplace_back(*e, opt);
  }
  for (const auto& [key, option] : kSharedKeys) {
    const ConfigEntry* e = config.find(key);
    CLI::Option* opt = sub.get_option_no_throw(std::string("--") + option);
    if (e != nullptr && opt != nullptr) work.emplace_back(*e, opt);
  }
  for (const auto& [e, opt] : work) {
    if (opt->count() > 0) {
      // The environment or the command line set it: record what they set.
      const std::vector<std::string> words =
          is_flag(*opt) ? std::vector<std::string>{opt->as<bool>() ? "true" : "false"}
                        : opt->results();
      config.set(e.key, value_like(e.value, words), option_origin(*opt));
      continue;
    }
    if (is_unset(e.value)) continue;
    if (const CLI::Option* other = excluded_by(*opt)) {
      config.set(e.key, e.value,
                 fmt::format("{} (not applied: {} was given)", e.origin, other->get_name()));
      continue;
    }
    try {
      opt->add_result(to_option_texts(e.value));
      opt->run_callback();
      config_applied()[opt] = {e.origin, opt->results()};
    } catch (const CLI::Error& error) {
      throw InputError(
          fmt::format("{}: {} = {}: {}", e.origin, e.key, to_toml(e.value), error.what()));
    }
  }
}

void attach_config(CLI::App& sub, const std::string& section, ConfigChoice& choice,
                   ConfigHooks hooks) {
  choice.section = section;
  choice.tables = {section};
  for (const auto& [key, option] : kSharedKeys) {
    if (sub.get_option_no_throw(std::string("--") + option) != nullptr) {
      choice.tables.emplace_back(top_table(key));
    }
  }
  choice.tables.emplace_back("device");
  sub.add_option("--config", choice.user_file,
                 "Configuration file laid over configs/default.toml and the device's file")
      ->envname("GEMMTUNE_CONFIG");
  sub.add_option("--configs-dir", choice.configs_dir,
                 "Read default.toml and devices/*.toml from this directory instead of the "
                 "built-in copies of configs/")
      ->envname("GEMMTUNE_CONFIGS_DIR");
  sub.add_option("--device-config", choice.device_config,
                 "Device file: auto (by the device's name), none, a file of configs/devices/ "
                 "(h100_sxm) or a .toml path")
      ->envname("GEMMTUNE_DEVICE_CONFIG")
      ->capture_default_str();
  sub.add_flag("--show-config", choice.show,
               "Print the effective configuration (TOML, each key's origin) and exit");
  CLI::App* app = &sub;
  sub.parse_complete_callback([app, section, &choice, hooks] {
    if (hooks.skip && hooks.skip()) return;
    ConfigRequest request;
    request.configs_dir = choice.configs_dir;
    request.device_config = choice.device_config;
    request.user_file = choice.user_file;
    if ((choice.device_config == "auto" || choice.device_config.empty()) && hooks.device_name) {
      choice.device_name = hooks.device_name();
    }
    request.device_name = choice.device_name;
    EffectiveConfig effective = load_effective_config(request);
    for (std::size_t i = 0; i < effective.notes.warnings.size(); ++i) {
      if (names_settable_option(*app, effective.notes.added[i])) continue;
      fmt::print(stderr, "gemmtune: warning: {}\n", effective.notes.warnings[i]);
    }
    if (choice.show || (hooks.verbose && hooks.verbose())) {
      for (const auto& change : effective.notes.changes) {
        fmt::print(stderr, "gemmtune: config: {}\n", change);
      }
    }
    apply_config(*app, section, effective.tree);
    choice.effective = std::move(effective);
    if (choice.show) {
      fmt::print("{}", choice.show_text());
      throw ExitWith(ExitCode::Success);
    }
  });
}

}  // namespace gemmtune::cli
