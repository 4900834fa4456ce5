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

TEST(PytorchValidators, KnowsPytorchSolutionNames) {
  EXPECT_TRUE(pytorch_understands_solution("Default"));
  EXPECT_TRUE(pytorch_understands_solution(
      "Gemm_Cublaslt_id_66_tile_20_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0"));
  EXPECT_FALSE(pytorch_understands_solution("Cpu_Blocked_mc_64_kc_256_nc_1024"));
}

}  // namespace
}  // namespace gemmtune
