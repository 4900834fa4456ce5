// The layers: configs/default.toml < the device file (auto by name, none, a stem, a path) < the
// user's file, each merged by FlagPerf's rules.
#include "drivers/config/config_layers.hpp"

#include <gtest/gtest.h>

#include "drivers/config/device_spec.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

using testing::TempDir;
using testing::write_text;

std::string origin_of(const EffectiveConfig& c, std::string_view key) {
  const ConfigEntry* e = c.tree.find(key);
  return e ? e->origin : std::string("(missing)");
}

TEST(ConfigLayers, TheBaseAloneIsNeutral) {
  ConfigRequest request;
  request.device_name = "Some CPU";
  const EffectiveConfig c = load_effective_config(request);
  EXPECT_EQ(c.layers, std::vector<std::string>{"configs/default.toml"});
  EXPECT_EQ(c.device_layer, "");
  EXPECT_FALSE(device_spec_from(c.tree));
  EXPECT_TRUE(c.notes.warnings.empty());
  EXPECT_TRUE(c.notes.changes.empty());
  EXPECT_EQ(std::get<std::int64_t>(c.tree.find("tune.max_tuning_iterations")->value), 100);
}

TEST(ConfigLayers, TheDeviceFileIsChosenByTheDevicesName) {
  ConfigRequest request;
  request.device_name = "NVIDIA H100 80GB HBM3";
  const EffectiveConfig c = load_effective_config(request);
  EXPECT_EQ(c.layers,
            (std::vector<std::string>{"configs/default.toml", "configs/devices/h100_sxm.toml"}));
  EXPECT_EQ(c.device_layer, "h100_sxm");
  // Device files override the base's neutral [device]: changes, never warnings.
  EXPECT_TRUE(c.notes.warnings.empty());
  EXPECT_FALSE(c.notes.changes.empty());
  EXPECT_EQ(origin_of(c, "device.peak_dense_tflops.bfloat16"), "configs/devices/h100_sxm.toml");
  EXPECT_EQ(origin_of(c, "device.peak_dense_tflops.float8_e4m3fnuz"), "configs/default.toml");
  EXPECT_EQ(origin_of(c, "tune.seed"), "configs/default.toml");
}

TEST(ConfigLayers, NoneAStemOrAPathChooseTheDeviceFile) {
  ConfigRequest request;
  request.device_name = "NVIDIA H100 80GB HBM3";
  request.device_config = "none";
  EXPECT_EQ(load_effective_config(request).device_layer, "");
  request.device_config = "mi300x";
  EXPECT_EQ(load_effective_config(request).device_layer, "mi300x");
  TempDir dir;
  write_text(dir / "mine.toml",
             "[device]\nname = \"My GPU\"\nmatch = [\"MINE\"]\npeak_dense_tflops.bfloat16 = 5.0\n");
  request.device_config = (dir / "mine.toml").string();
  const EffectiveConfig c = load_effective_config(request);
  EXPECT_EQ(c.layers.back(), (dir / "mine.toml").string());
  EXPECT_DOUBLE_EQ(*device_spec_from(c.tree)->peak_tflops("bfloat16"), 5.0);
  request.device_config = "h300";
  EXPECT_THROW(load_effective_config(request), InputError);
}

TEST(ConfigLayers, TheUserFileComesLast) {
  TempDir dir;
  write_text(dir / "user.toml",
             "[tune]\nmax_tuning_iterations = 300\n[device.peak_dense_tflops]\nbfloat16 = 900.0\n"
             "[mamf]\nextra = 1\n");
  ConfigRequest request;
  request.device_config = "h100_sxm";
  request.user_file = (dir / "user.toml").string();
  const EffectiveConfig c = load_effective_config(request);
  EXPECT_EQ(c.layers.size(), 3u);
  EXPECT_EQ(origin_of(c, "tune.max_tuning_iterations"), (dir / "user.toml").string());
  EXPECT_DOUBLE_EQ(*device_spec_from(c.tree)->peak_tflops("bfloat16"), 900.0);
  EXPECT_DOUBLE_EQ(*device_spec_from(c.tree)->peak_tflops("float16"), 989.4);
  ASSERT_EQ(c.notes.warnings.size(), 1u);
  EXPECT_NE(c.notes.warnings[0].find("mamf.extra is not in configs/default.toml or "
                                     "configs/devices/h100_sxm.toml"),
            std::string::npos)
      << c.notes.warnings[0];
  EXPECT_NE(std::find(c.notes.changes.begin(), c.notes.changes.end(),
                      "device.peak_dense_tflops.bfloat16: 989.4 → 900.0 (" +
                          (dir / "user.toml").string() + ")"),
            c.notes.changes.end());
}

TEST(ConfigLayers, AUserValueEqualToTheDevicesIsAnError) {
  TempDir dir;
  write_text(dir / "user.toml", "[device.peak_dense_tflops]\nbfloat16 = 989.4\n");
  ConfigRequest request;
  request.device_config = "h100_sxm";
  request.user_file = (dir / "user.toml").string();
  try {
    load_effective_config(request);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "user.toml").string() +
                  ": device.peak_dense_tflops.bfloat16 = 989.4 is the same as in "
                  "configs/devices/h100_sxm.toml; remove it");
  }
}

TEST(ConfigLayers, AConfigsDirectoryReplacesTheBuiltInFiles) {
  TempDir dir;
  write_text(dir / "default.toml", "[tune]\nseed = 1\n[device]\nname = \"unknown\"\nmatch = []\n");
  std::filesystem::create_directories(dir / "devices");
  write_text(dir / "devices/t.toml",
             "[device]\nname = \"T\"\nmatch = [\"T1\"]\n[tune]\nseed = 2\n");
  ConfigRequest request;
  request.configs_dir = dir.path().string();
  request.device_name = "Vendor T1";
  const EffectiveConfig c = load_effective_config(request);
  EXPECT_EQ(c.layers, (std::vector<std::string>{(dir / "default.toml").string(),
                                                (dir / "devices/t.toml").string()}));
  EXPECT_EQ(std::get<std::int64_t>(c.tree.find("tune.seed")->value), 2);
  EXPECT_EQ(c.tree.find("tune.max_tuning_iterations"), nullptr);
}

}  // namespace
}  // namespace gemmtune
