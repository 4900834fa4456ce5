#include <gtest/gtest.h>

#include "tuner/error.hpp"
#include "validator/pytorch_validators.hpp"

namespace gemmtune {
namespace {

TEST(PytorchValidators, AssignmentsKeepOrderAndValues) {
  const auto env = environment_from_assignments({"PT_VERSION=2.14.0", "CUBLASLT_VERSION=130100"});
  ASSERT_EQ(env.size(), 2u);
  EXPECT_EQ(env.entries()[0].first, "PT_VERSION");
  EXPECT_EQ(env.get("CUBLASLT_VERSION"), "130100");
}

TEST(PytorchValidators, BadAssignmentIsNamed) {
  try {
    environment_from_assignments({"PT_VERSION"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'PT_VERSION' must have the form KEY=VALUE"),
              std::string::npos);
  }
}

// A line break would split the validator's line in the written file; spaces round a value would
// not read back (the reader trims them).
TEST(PytorchValidators, AssignmentsThatWouldNotReadBackAreRefused) {
  for (const char* bad : {"X=a\nb", "X=a\rb", "X=a\tb", "X=a ", "X= a", " X=a", "X =a"}) {
    EXPECT_THROW(environment_from_assignments({bad}), InputError) << bad;
  }
  EXPECT_EQ(environment_from_assignments({"X=a b"}).get("X"), "a b");
}

constexpr const char* kCublaslt =
    "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0";

TEST(PytorchValidators, CublasltNamesNeedPytorch214OnCuda) {
  for (const char* version : {"2.14.0", "2.14.0a0+git1234abc", "2.15.1", "3.0.0"}) {
    const auto env = environment_from_assignments({std::string("PT_VERSION=") + version});
    EXPECT_EQ(why_pytorch_cannot_run(kCublaslt, env), std::nullopt) << version;
    EXPECT_EQ(why_pytorch_cannot_run("Default", env), std::nullopt) << version;
  }
  for (const char* version : {"2.11.0", "2.13.1", "1.14.0"}) {
    const auto env = environment_from_assignments({std::string("PT_VERSION=") + version});
    const auto why = why_pytorch_cannot_run(kCublaslt, env);
    ASSERT_TRUE(why.has_value()) << version;
    EXPECT_NE(why->find("knows only Default on CUDA"), std::string::npos) << *why;
    EXPECT_EQ(why_pytorch_cannot_run("Default", env), std::nullopt) << version;
  }
  const auto unreadable = environment_from_assignments({"PT_VERSION=main"});
  EXPECT_TRUE(why_pytorch_cannot_run(kCublaslt, unreadable).has_value());
}

TEST(PytorchValidators, CublasltNamesMustBeInPytorchsFormat) {
  const auto env = environment_from_assignments({"PT_VERSION=2.14.0"});
  EXPECT_EQ(why_pytorch_cannot_run(
                "Gemm_Cublaslt_id_-1_tile_4294967295_stages_0_splitk_-2_red_0_swizzle_1_custom_"
                "0_inner_65535_cluster_0",
                env),
            std::nullopt);
  for (const char* bad :
       {"Gemm_Cublaslt_garbage",
        "Gemm_Cublaslt_id_66_tile_4294967296_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_"
        "cluster_0",
        "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_70000_"
        "cluster_0",
        "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0",
        "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0x",
        "Gemm_Cublaslt_id_66_tile__stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0",
        "Gemm_Cublaslt_id_66_tile_-3_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_"
        "0"}) {
    const auto why = why_pytorch_cannot_run(bad, env);
    ASSERT_TRUE(why.has_value()) << bad;
    EXPECT_NE(why->find("PyTorch's format"), std::string::npos) << *why;
  }
}

TEST(PytorchValidators, RocmNamesOnRocmOnly) {
  const auto rocm = environment_from_assignments(
      {"PT_VERSION=2.11.0", "ROCM_VERSION=6.4.0", "HIPBLASLT_VERSION=0.12"});
  const auto cuda = environment_from_assignments({"PT_VERSION=2.14.0"});
  for (const char* name : {"Gemm_Hipblaslt_TN_1234", "Gemm_Rocblas_5678"}) {
    EXPECT_EQ(why_pytorch_cannot_run(name, rocm), std::nullopt) << name;
    EXPECT_TRUE(why_pytorch_cannot_run(name, cuda).has_value()) << name;
  }
  EXPECT_TRUE(why_pytorch_cannot_run(kCublaslt, rocm).has_value());
}

TEST(PytorchValidators, GemmtuneOwnSolutionsAreLeftOut) {
  const auto env = environment_from_assignments({"PT_VERSION=2.14.0"});
  EXPECT_TRUE(why_pytorch_cannot_run("Cpu_Blocked_mc_64_kc_256_nc_1024", env).has_value());
  EXPECT_TRUE(why_pytorch_cannot_run("Gemmtune_Skinny_rows_1_threads_256", env).has_value());
}

// PyTorch's ReadFile splits a line with getline(..., ','): an empty last field is dropped and a
// value ends at a comma, so neither would be read as written.
TEST(PytorchValidators, ValuesPyTorchWouldReadOtherwiseAreRefused) {
  EXPECT_FALSE(why_pytorch_reads_otherwise("2.11.0").has_value());
  EXPECT_TRUE(why_pytorch_reads_otherwise("").has_value());
  const auto comma = why_pytorch_reads_otherwise("4.0,extra");
  ASSERT_TRUE(comma.has_value());
  EXPECT_NE(comma->find("reads '4.0'"), std::string::npos) << *comma;
  EXPECT_THROW(environment_from_assignments({"PT_VERSION="}), InputError);
}

TEST(PytorchValidators, PtVersionIsRequired) {
  EXPECT_NO_THROW(require_pytorch_version(environment_from_assignments({"PT_VERSION=2.11.0"})));
  try {
    require_pytorch_version(environment_from_assignments({"CUDA_VERSION=13.0"}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no PT_VERSION"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gemmtune
