// Device specs from the configuration's [device] table: every device file's peaks, the suggested
// MAMF ranges of the issue, matching, and values of the wrong kind named by key and file.
#include "drivers/config/device_spec.hpp"

#include <gtest/gtest.h>

#include "drivers/config/config_files.hpp"
#include "drivers/config/config_merge.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// The device file laid over the base, as the layers do.
DeviceSpec spec_of(std::string_view stem) {
  ConfigTree tree = builtin_config_sources().base.tree;
  MergeNotes notes;
  merge_layer(tree, device_layer_named(builtin_config_sources(), stem).tree, notes);
  const auto spec = device_spec_from(tree);
  EXPECT_TRUE(spec) << stem;
  return spec.value_or(DeviceSpec{});
}

TEST(DeviceSpec, EveryDeviceFileHasTheIssuesPeaks) {
  for (const auto& layer : builtin_config_sources().devices) {
    const DeviceSpec s = spec_of(layer.name);
    EXPECT_GT(s.memory_bandwidth_gb_s, 0) << s.name;
    EXPECT_TRUE(s.peak_tflops("bfloat16")) << s.name;
    EXPECT_TRUE(s.peak_tflops("float16")) << s.name;
    EXPECT_TRUE(s.peak_tflops("float32")) << s.name;
    EXPECT_TRUE(s.peak_tflops("tf32")) << s.name;
    EXPECT_FALSE(s.source.empty()) << s.name;
    EXPECT_EQ(s.origin, layer.origin);
  }
  const DeviceSpec h200 = spec_of("h200");
  EXPECT_EQ(h200.name, "NVIDIA H200 SXM");
  EXPECT_DOUBLE_EQ(*h200.peak_tflops("bfloat16"), 989.4);
  EXPECT_DOUBLE_EQ(*h200.peak_tflops("float8_e4m3fn"), 1978.9);
  EXPECT_DOUBLE_EQ(h200.memory_bandwidth_gb_s, 4800);
  EXPECT_FALSE(h200.peak_tflops("float64"));
  EXPECT_FALSE(h200.peak_tflops("float8_e4m3fnuz"));  // 0 in the base: unknown
  EXPECT_DOUBLE_EQ(*spec_of("mi300x").peak_tflops("float8_e4m3fnuz"), 2614.9);
}

TEST(DeviceSpec, SuggestedMamfRangesAreTheIssues) {
  for (const char* stem : {"h100_sxm", "h100_pcie", "h200", "gh200", "b200"}) {
    EXPECT_EQ(spec_of(stem).suggested_mamf(),
              "--m_range 0 20480 256 --n_range 0 20480 256 --k_range 0 20480 256")
        << stem;
  }
  for (const char* stem : {"a100_sxm", "a100_pcie", "mi300x"}) {
    EXPECT_EQ(spec_of(stem).suggested_mamf(),
              "--m_range 0 5376 256 --n_range 0 5376 256 --k_range 0 5376 256")
        << stem;
  }
}

TEST(DeviceSpec, MatchingIsCaseInsensitiveWithExclusions) {
  DeviceSpec s;
  s.match = {"H100"};
  s.exclude = {"PCIE", "NVL"};
  EXPECT_TRUE(s.matches("NVIDIA h100 80GB HBM3"));
  EXPECT_FALSE(s.matches("NVIDIA H100 PCIe"));
  EXPECT_FALSE(s.matches("NVIDIA H100 NVL"));
  EXPECT_FALSE(DeviceSpec{}.matches("anything"));  // no match terms: matches nothing
}

TEST(DeviceSpec, TheBaseAloneNamesNoDevice) {
  EXPECT_FALSE(device_spec_from(builtin_config_sources().base.tree));
  EXPECT_FALSE(device_spec_from(ConfigTree{}));
}

TEST(DeviceSpec, WrongKindsNameKeyAndFile) {
  const auto fails = [](std::string_view text, std::string_view needle) {
    try {
      device_spec_from(ConfigTree::parse(text, "configs/devices/bad.toml"));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("configs/devices/bad.toml: ", 0), 0u) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  fails("[device]\nname = 1\n", "device.name = 1 must be a string");
  fails("[device]\nname = \"A\"\nmatch = \"A\"\n",
        "device.match = \"A\" must be an array of strings");
  fails("[device]\nname = \"A\"\nmatch = [1]\n", "device.match");
  fails("[device]\nname = \"A\"\npeak_dense_tflops.bfloat16 = -1.0\n",
        "device.peak_dense_tflops.bfloat16 = -1.0 must be a number, 0 or more");
  fails("[device]\nname = \"A\"\npeak_dense_tflops.bfloat16 = \"fast\"\n", "bfloat16");
  fails("[device]\nname = \"A\"\nmamf_m_range = [0, 1]\n", "[START, STOP, STEP]");
  fails("[device]\nname = \"A\"\nmemory_bandwidth_gb_s = true\n", "memory_bandwidth_gb_s");
}

}  // namespace
}  // namespace gemmtune
