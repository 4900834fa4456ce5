// The files of configs/: the built-in copies equal the source tree's, device files are chosen by
// the names devices really report (most match terms wins, ties match nothing), bad files and
// directories are named.
#include "drivers/config/config_files.hpp"

#include <gtest/gtest.h>

#include "drivers/config/device_spec.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

using testing::TempDir;
using testing::write_text;

std::string matched(std::string_view device) {
  const ConfigLayer* layer = match_device_layer(builtin_config_sources(), device);
  return layer ? layer->name : std::string("none");
}

TEST(ConfigFiles, DeviceFilesMatchTheNamesDevicesReport) {
  EXPECT_EQ(matched("NVIDIA H200"), "h200");
  EXPECT_EQ(matched("NVIDIA GH200 480GB"), "gh200");
  EXPECT_EQ(matched("NVIDIA H100 80GB HBM3"), "h100_sxm");
  EXPECT_EQ(matched("NVIDIA H100 PCIe"), "h100_pcie");
  EXPECT_EQ(matched("NVIDIA A100-SXM4-80GB"), "a100_sxm");
  EXPECT_EQ(matched("NVIDIA A100 80GB PCIe"), "a100_pcie");
  EXPECT_EQ(matched("NVIDIA A100-PCIE-40GB"), "a100_pcie");
  EXPECT_EQ(matched("NVIDIA B200"), "b200");
  EXPECT_EQ(matched("AMD Instinct MI300X"), "mi300x");
  EXPECT_EQ(matched("Tesla T4"), "none");
  EXPECT_EQ(matched("NVIDIA H100 NVL"), "none");  // a different part: no guessing
  EXPECT_EQ(matched("Intel(R) Xeon(R) Platinum 8480C"), "none");
  EXPECT_EQ(matched(""), "none");
}

TEST(ConfigFiles, TheBuiltInCopiesAreTheSourceTreesFiles) {
  const ConfigSources& builtin = builtin_config_sources();
  const ConfigSources loaded = load_config_sources(GEMMTUNE_SOURCE_DIR "/configs");
  EXPECT_EQ(builtin.base.origin, "configs/default.toml");
  ASSERT_EQ(loaded.devices.size(), builtin.devices.size());
  EXPECT_GE(builtin.devices.size(), 8u);
  const auto same_tree = [](const ConfigTree& a, const ConfigTree& b) {
    ASSERT_EQ(a.entries().size(), b.entries().size());
    for (std::size_t i = 0; i < a.entries().size(); ++i) {
      EXPECT_EQ(a.entries()[i].key, b.entries()[i].key);
      EXPECT_TRUE(same_value(a.entries()[i].value, b.entries()[i].value)) << a.entries()[i].key;
    }
  };
  same_tree(builtin.base.tree, loaded.base.tree);
  for (std::size_t i = 0; i < builtin.devices.size(); ++i) {
    EXPECT_EQ(builtin.devices[i].name, loaded.devices[i].name);
    EXPECT_EQ(builtin.devices[i].origin, "configs/devices/" + builtin.devices[i].name + ".toml");
    same_tree(builtin.devices[i].tree, loaded.devices[i].tree);
  }
}

TEST(ConfigFiles, MostSpecificMatchWinsAndTiesMatchNothing) {
  TempDir dir;
  write_text(dir / "default.toml", "[device]\nname = \"unknown\"\nmatch = []\n");
  std::filesystem::create_directories(dir / "devices");
  write_text(dir / "devices/x.toml", "[device]\nname = \"X\"\nmatch = [\"X1\"]\n");
  write_text(dir / "devices/x_pcie.toml",
             "[device]\nname = \"X pcie\"\nmatch = [\"X1\", \"pcie\"]\n");
  write_text(dir / "devices/notes.txt", "not a device file");
  ConfigSources sources = load_config_sources(dir.path());
  ASSERT_EQ(sources.devices.size(), 2u);
  EXPECT_EQ(match_device_layer(sources, "Vendor X1 PCIe")->name, "x_pcie");
  EXPECT_EQ(match_device_layer(sources, "Vendor x1")->name, "x");
  write_text(dir / "devices/y.toml", "[device]\nname = \"Y\"\nmatch = [\"vendor\"]\n");
  sources = load_config_sources(dir.path());
  EXPECT_EQ(match_device_layer(sources, "Vendor x1"), nullptr);  // x and y: one term each
  EXPECT_EQ(device_layer_named(sources, "y").origin, (dir / "devices/y.toml").string());
}

TEST(ConfigFiles, BadFilesAndDirectoriesAreNamed) {
  const auto fails = [](auto&& call, std::string_view needle) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  TempDir dir;
  fails([&] { load_config_sources(dir / "nope"); }, "not a directory of configuration files");
  fails([&] { load_config_sources(dir.path()); }, "default.toml: missing");
  fails([&] { load_config_file(dir / "nope.toml"); }, "nope.toml: cannot read");
  write_text(dir / "no_name.toml", "[device]\nmatch = [\"A\"]\n");
  fails([&] { load_device_file(dir / "no_name.toml"); }, "no_name.toml: a device file names");
  write_text(dir / "no_match.toml", "[device]\nname = \"A\"\n");
  fails([&] { load_device_file(dir / "no_match.toml"); }, "no_match.toml: a device file needs");
  write_text(dir / "bad.toml", "[device\nname = \"A\"\n");
  fails([&] { load_device_file(dir / "bad.toml"); }, "bad.toml:1: not valid TOML");
  fails([&] { device_layer_named(builtin_config_sources(), "h300"); },
        "--device-config h300: no such device file (there are: a100_pcie, a100_sxm");
}

}  // namespace
}  // namespace gemmtune
