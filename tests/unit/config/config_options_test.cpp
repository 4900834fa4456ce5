// The configuration on the command line, through the real command tree: default.toml's [tune]
// and [mamf] are the options' built-in defaults; the layers apply in the order default < device
// file < user file < environment < command line; --show-config prints the result; bad files and
// values are named.
#include "cli/config_options.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "cli/app.hpp"
#include "cli/exit_codes.hpp"
#include "drivers/config/config_files.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cli {
namespace {

using gemmtune::testing::read_text;
using gemmtune::testing::TempDir;
using gemmtune::testing::write_text;

// Parses `args` (after "gemmtune") with the real command tree; returns what --show-config
// printed. Throws what parsing throws, except the ExitWith(Success) that --show-config ends with.
std::string parse(CLI::App& app, std::vector<std::string> args) {
  args.insert(args.begin(), "gemmtune");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const ExitWith& e) {
    const std::string out = ::testing::internal::GetCapturedStdout();
    if (e.code() != ExitCode::Success) throw;
    return out;
  } catch (...) {
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  return ::testing::internal::GetCapturedStdout();
}

CLI::Option* option_for(CLI::App& sub, std::string name) {
  if (auto* opt = sub.get_option_no_throw("--" + name)) return opt;
  std::replace(name.begin(), name.end(), '_', '-');
  return sub.get_option_no_throw("--" + name);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// The line of `text` that sets `key` (in whatever table), or "".
std::string line_of(const std::string& text, const std::string& key) {
  std::size_t at = 0;
  while ((at = text.find(key + " = ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return text.substr(at, text.find('\n', at) - at);
    at += key.size();
  }
  return {};
}

// default.toml's value of a key equals the built-in default of the option it sets.
void expect_builtin_default(const ConfigEntry& e, const CLI::Option& opt) {
  const std::string builtin = opt.get_default_str();
  if (is_unset(e.value)) {
    EXPECT_EQ(builtin, "") << e.key;
  } else if (const auto* b = std::get_if<bool>(&e.value)) {
    EXPECT_EQ(opt.get_expected_max(), 0) << e.key << " is a boolean: a flag's";
    EXPECT_EQ(builtin.empty() ? "false" : builtin, *b ? "true" : "false") << e.key;
  } else if (const auto* s = std::get_if<std::string>(&e.value)) {
    EXPECT_EQ(builtin, *s) << e.key;
  } else {
    ASSERT_FALSE(builtin.empty()) << e.key << ": the option shows no default";
    EXPECT_TRUE(same_value(e.value, std::stod(builtin)))
        << e.key << " = " << to_toml(e.value) << ", the option's default is " << builtin;
  }
}

TEST(ConfigOptions, DefaultTomlHoldsTheOptionsBuiltInDefaults) {
  const auto app = make_app();
  const ConfigTree& base = builtin_config_sources().base.tree;
  EXPECT_GE(base.under("tune").size(), 8u);
  EXPECT_GE(base.under("mamf").size(), 8u);
  // Every subcommand that has a table (tune, mamf, and bench once it has one).
  for (CLI::App* sub : app->get_subcommands({})) {
    const std::string section = sub->get_name();
    for (const ConfigEntry* e : base.under(section)) {
      const std::string name = e->key.substr(section.size() + 1);
      if (CLI::Option* opt = option_for(*sub, name)) {
        expect_builtin_default(*e, *opt);
      } else {
        ADD_FAILURE() << e->key << " names no option of gemmtune " << section;
      }
    }
    // A tuning knob tune and this subcommand share has a key in both tables (bench once lacked
    // four, and a --config setting them was warned about as a misspelling).
    if (section != "tune") {
      for (const ConfigEntry* e : base.under("tune")) {
        const std::string name = e->key.substr(std::string("tune.").size());
        if (option_for(*sub, name) != nullptr) {
          EXPECT_NE(base.find(section + "." + name), nullptr)
              << "gemmtune " << section << " has --" << name << ", [tune] has " << e->key << ", ["
              << section << "] has not";
        }
      }
    }
    // Shared tables: where the subcommand has the option.
    if (CLI::Option* opt = sub->get_option_no_throw("--monitor-interval-ms")) {
      ASSERT_NE(base.find("monitor.interval_ms"), nullptr);
      expect_builtin_default(*base.find("monitor.interval_ms"), *opt);
    }
  }
}

TEST(ConfigOptions, LayersApplyDefaultDeviceUserEnvironmentCommandLine) {
  TempDir dir;
  std::filesystem::create_directories(dir / "configs/devices");
  write_text(dir / "configs/default.toml", read_text(GEMMTUNE_SOURCE_DIR "/configs/default.toml"));
  write_text(dir / "configs/devices/testdev.toml",
             "[device]\nname = \"Test device\"\nmatch = [\"TESTDEV\"]\n"
             "[tune]\nmax_tuning_iterations = 200\nmax_warmup_iterations = 2\nmax_finalists = 3\n"
             "seed = 7\n");
  write_text(dir / "user.toml", "[tune]\nmax_warmup_iterations = 5\nmax_finalists = 4\nseed = 8\n");
  const ScopedEnv finalists("GEMMTUNE_MAX_FINALISTS", "6");
  const ScopedEnv seed("GEMMTUNE_SEED", "9");
  const auto app = make_app();
  const std::string shown =
      parse(*app, {"tune", "--backend", "cpu", "--configs-dir", (dir / "configs").string(),
                   "--device-config", "testdev", "--config", (dir / "user.toml").string(), "--seed",
                   "10", "--show-config"});
  CLI::App& tune = *app->get_subcommand("tune");
  EXPECT_EQ(tune.get_option("--max-tuning-duration-ms")->as<double>(), 30);  // default.toml
  EXPECT_EQ(tune.get_option("--max-tuning-iterations")->as<int>(), 200);     // device file
  EXPECT_EQ(tune.get_option("--max-warmup-iterations")->as<int>(), 5);       // user file
  EXPECT_EQ(tune.get_option("--max-finalists")->as<int>(), 6);               // environment
  EXPECT_EQ(tune.get_option("--seed")->as<int>(), 10);                       // command line

  const std::string device_file = (dir / "configs/devices/testdev.toml").string();
  EXPECT_NE(line_of(shown, "max_tuning_duration_ms").find("= 30  "), std::string::npos) << shown;
  EXPECT_NE(
      line_of(shown, "max_tuning_duration_ms").find("# " + (dir / "configs/default.toml").string()),
      std::string::npos)
      << shown;
  EXPECT_NE(line_of(shown, "max_tuning_iterations").find("= 200 "), std::string::npos) << shown;
  EXPECT_NE(line_of(shown, "max_tuning_iterations").find("# " + device_file), std::string::npos);
  EXPECT_NE(line_of(shown, "max_warmup_iterations").find("# " + (dir / "user.toml").string()),
            std::string::npos);
  EXPECT_NE(line_of(shown, "max_finalists").find("= 6 "), std::string::npos) << shown;
  EXPECT_NE(line_of(shown, "max_finalists").find("# GEMMTUNE_MAX_FINALISTS"), std::string::npos);
  EXPECT_NE(line_of(shown, "seed").find("= 10 "), std::string::npos) << shown;
  EXPECT_NE(line_of(shown, "seed").find("# command line"), std::string::npos) << shown;
  EXPECT_NE(
      shown.find("# layers: " + (dir / "configs/default.toml").string() + " < " + device_file +
                 " < " + (dir / "user.toml").string() + " < environment < command line"),
      std::string::npos)
      << shown;
}

TEST(ConfigOptions, ShowConfigPrintsTheWholeEffectiveConfiguration) {
  const auto app = make_app();
  const std::string shown = parse(*app, {"tune", "--backend", "cpu", "--show-config"});
  EXPECT_EQ(shown.rfind("# gemmtune tune: effective configuration\n", 0), 0u) << shown;
  EXPECT_NE(shown.find("# layers: configs/default.toml < environment < command line\n"),
            std::string::npos)
      << shown;
  for (const char* table :
       {"[tune]", "[mamf]", "[monitor]", "[device]", "[device.peak_dense_tflops]"}) {
    EXPECT_NE(shown.find(std::string("\n") + table + "\n"), std::string::npos) << table;
  }
  EXPECT_NE(line_of(shown, "max_tuning_iterations").find("# configs/default.toml"),
            std::string::npos)
      << shown;
  // What --show-config prints is TOML that reads back.
  EXPECT_NO_THROW(ConfigTree::parse(shown, "shown.toml"));
}

TEST(ConfigOptions, TheDevicesPeaksReachMamf) {
  const auto app = make_app();
  const std::string shown =
      parse(*app, {"mamf", "--backend", "cpu", "--device-config", "h100_sxm", "--show-config"});
  EXPECT_NE(line_of(shown, "bfloat16").find("= 989.4 "), std::string::npos) << shown;
  EXPECT_NE(line_of(shown, "bfloat16").find("# configs/devices/h100_sxm.toml"), std::string::npos);
  EXPECT_NE(line_of(shown, "mamf_m_range").find("[0, 20480, 256]"), std::string::npos) << shown;
  EXPECT_NE(shown.find("# layers: configs/default.toml < configs/devices/h100_sxm.toml <"),
            std::string::npos);
}

TEST(ConfigOptions, BadOverridesNameTheKeyAndTheFile) {
  TempDir dir;
  const auto fails = [&](std::string_view text, std::string_view needle,
                         const std::string& command = "tune") {
    write_text(dir / "user.toml", text);
    const auto app = make_app();
    try {
      parse(*app, {command, "--backend", "cpu", "--config", (dir / "user.toml").string(),
                   "--show-config"});
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind((dir / "user.toml").string(), 0), 0u) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  fails("[tune]\nmax_tuning_iterations = 100\n",
        ": tune.max_tuning_iterations = 100 is the same as in configs/default.toml; remove it");
  fails("[tune]\nmax_tuning_iterations = -3\n", ": tune.max_tuning_iterations = -3: ");
  fails("[tune]\nsearch = \"everything\"\n", ": tune.search = \"everything\": ");
  fails("[tune]\nno_such_option = 1\n", ": tune.no_such_option names no option of gemmtune tune");
  fails("[tune]\nconfig = \"other.toml\"\n", ": tune.config names no option");
  fails("[tune\n", ":1: not valid TOML");
  // Values that the command line's checks refuse as usage errors (exit 2) are bad input here
  // (exit 3), naming the key and the file.
  fails("[tune]\nnumerical_check = \"maybe\"\n",
        ": tune.numerical_check = \"maybe\": --numerical-check: numerical check 'maybe'");
  fails("[tune]\nworkers = 100000\n", ": tune.workers = 100000: --workers: ");
  fails("[tune]\ndevices = [0, 0]\n", ": tune.devices = [0, 0]: --devices: each ordinal once");
  fails("[tune]\nshard = \"2/2\"\n", ": tune.shard = \"2/2\": --shard: '2/2' is not a shard");
  fails("[tune]\nproviders = [\"nope\"]\n", "--providers: no provider 'nope'");
  fails("[mamf]\ndtype = \"quarter\"\n", ": mamf.dtype = \"quarter\": --dtype: ", "mamf");
  fails("[mamf]\nnumerical_check = \"1e-3\"\n", ": mamf.numerical_check = \"1e-3\": ", "mamf");
  fails("[mamf]\nm_range = [512, 512, 64]\n", "--m_range 512 512 64 holds no value", "mamf");
}

TEST(ConfigOptions, UnsetValuesAndExcludedOptionsAreLeftAlone) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("x");
  std::vector<int> m, m_range;
  bool rotate = false;
  double rotating = -1;
  auto* m_opt = sub->add_option("--m", m);
  sub->add_option("--m_range", m_range)->expected(3)->excludes(m_opt);
  sub->add_flag("--rotate", rotate);
  sub->add_option("--rotating-buffer-mb", rotating);
  const ConfigTree config = ConfigTree::parse(
      "[x]\nm_range = [0, 97, 32]\nrotate = true\nrotating_buffer_mb = \"\"\n", "c.toml");
  {
    ConfigTree c = config;
    app.parse("x --m 64");
    apply_config(*sub, "x", c);
    EXPECT_TRUE(m_range.empty());  // --m given: --m_range stays out
    EXPECT_EQ(c.find("x.m_range")->origin, "c.toml (not applied: --m was given)");
    EXPECT_TRUE(rotate);
    EXPECT_EQ(rotating, -1);  // "" = not set
  }
  m.clear();
  rotate = false;
  app.clear();
  {
    ConfigTree c = config;
    app.parse("x --rotate");
    apply_config(*sub, "x", c);
    EXPECT_EQ(m_range, (std::vector<int>{0, 97, 32}));
    EXPECT_TRUE(rotate);
    EXPECT_EQ(c.find("x.rotate")->origin, "command line");
    EXPECT_EQ(c.find("x.m_range")->origin, "c.toml");
  }
}

}  // namespace
}  // namespace gemmtune::cli
