// Device spec tables: matching by the names devices really report, peaks per dtype, bad files.
#include "drivers/mamf/device_specs.hpp"

#include <gtest/gtest.h>

#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

std::string matched(std::string_view device) {
  const auto spec = find_device_spec(builtin_device_specs(), device);
  return spec ? spec->name : std::string("none");
}

TEST(DeviceSpecs, MatchesTheNamesDevicesReport) {
  EXPECT_EQ(matched("NVIDIA H200"), "NVIDIA H200 SXM");
  EXPECT_EQ(matched("NVIDIA GH200 480GB"), "NVIDIA GH200 Grace Hopper (96GB HBM3)");
  EXPECT_EQ(matched("NVIDIA H100 80GB HBM3"), "NVIDIA H100 SXM5");
  EXPECT_EQ(matched("NVIDIA H100 PCIe"), "NVIDIA H100 PCIe");
  EXPECT_EQ(matched("NVIDIA A100-SXM4-80GB"), "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ(matched("NVIDIA A100 80GB PCIe"), "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ(matched("NVIDIA A100-PCIE-40GB"), "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ(matched("NVIDIA B200"), "NVIDIA B200");
  EXPECT_EQ(matched("AMD Instinct MI300X"), "AMD Instinct MI300X");
  EXPECT_EQ(matched("Tesla T4"), "none");
  EXPECT_EQ(matched("NVIDIA H100 NVL"), "none");  // a different part: no guessing
}

TEST(DeviceSpecs, EveryBuiltInSpecHasTheIssuesPeaks) {
  const auto& specs = builtin_device_specs();
  EXPECT_GE(specs.size(), 8u);
  for (const auto& s : specs) {
    EXPECT_GT(s.memory_bandwidth_gb_s, 0) << s.name;
    EXPECT_TRUE(s.peak_tflops("bfloat16")) << s.name;
    EXPECT_TRUE(s.peak_tflops("float16")) << s.name;
    EXPECT_TRUE(s.peak_tflops("float32")) << s.name;
    EXPECT_TRUE(s.peak_tflops("tf32")) << s.name;
  }
  const auto h200 = find_device_spec(specs, "NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(*h200->peak_tflops("bfloat16"), 989.4);
  EXPECT_DOUBLE_EQ(*h200->peak_tflops("float8_e4m3fn"), 1978.9);
  EXPECT_DOUBLE_EQ(h200->memory_bandwidth_gb_s, 4800);
  EXPECT_FALSE(h200->peak_tflops("float64"));
}

TEST(DeviceSpecs, TheSourceDirectoryHoldsTheSameTables) {
  const auto loaded = load_device_specs(GEMMTUNE_SOURCE_DIR "/configs/devices");
  ASSERT_EQ(loaded.size(), builtin_device_specs().size());
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    EXPECT_EQ(loaded[i].name, builtin_device_specs()[i].name);
    EXPECT_EQ(loaded[i].peak_dense_tflops, builtin_device_specs()[i].peak_dense_tflops);
  }
}

TEST(DeviceSpecs, MostSpecificMatchWinsAndTiesMatchNothing) {
  std::vector<DeviceSpec> specs{
      parse_device_spec(R"({"name":"X","match":["X1"],"peak_dense_tflops":{"bfloat16":1}})", "a"),
      parse_device_spec(R"({"name":"X pcie","match":["X1","pcie"],"peak_dense_tflops":{"bfloat16":1}})", "b"),
  };
  EXPECT_EQ(find_device_spec(specs, "Vendor X1 PCIe")->name, "X pcie");
  EXPECT_EQ(find_device_spec(specs, "Vendor x1")->name, "X");
  specs.push_back(parse_device_spec(R"({"name":"Y","match":["vendor"],"peak_dense_tflops":{"bfloat16":1}})", "c"));
  EXPECT_FALSE(find_device_spec(specs, "Vendor x1"));  // X and Y: one term each
}

TEST(DeviceSpecs, MalformedFilesNameFileAndField) {
  const auto fails = [](std::string_view text, std::string_view needle) {
    try {
      parse_device_spec(text, "configs/devices/bad.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
    }
  };
  fails("{", "not valid JSON");
  fails(R"({"match":["A"],"peak_dense_tflops":{}})", "name");
  fails(R"({"name":"A","peak_dense_tflops":{}})", "match");
  fails(R"({"name":"A","match":["A"]})", "peak_dense_tflops");
  fails(R"({"name":"A","match":["A"],"peak_dense_tflops":{"bfloat16":-1}})", "bfloat16");
  fails(R"({"name":"A","match":"A","peak_dense_tflops":{}})", "match");
  EXPECT_THROW(load_device_specs("/nonexistent/dir"), InputError);
}

}  // namespace
}  // namespace gemmtune::mamf
