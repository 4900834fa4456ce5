// The step replay's training step (bench/llm/shapes.cpp, training_step.cpp: no GPU needed): the
// 15 GEMMs of a layer in the order a training step runs them, and gate and up as one distinct
// GEMM that runs twice.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/llm/shapes.hpp"
#include "bench/llm/training_step.hpp"

namespace gemmtune::bench {
namespace {

std::vector<std::string> labels(const std::vector<LlmShape>& shapes) {
  std::vector<std::string> out;
  for (const LlmShape& s : shapes) out.push_back(s.label());
  return out;
}

TEST(LlmTrainingStep, ForwardThenBackwardFromTheLastLinearWithGateAndUpTwice) {
  const auto shapes = training_step_shapes("8B", DType::BFloat16);
  const std::vector<std::string> expected{
      "8B qkv fwd n=4096",       "8B o fwd n=4096",         "8B gate/up fwd n=4096",
      "8B gate/up fwd n=4096",   "8B down fwd n=4096",      "8B down dgrad n=4096",
      "8B down wgrad n=4096",    "8B gate/up dgrad n=4096", "8B gate/up wgrad n=4096",
      "8B gate/up dgrad n=4096", "8B gate/up wgrad n=4096", "8B o dgrad n=4096",
      "8B o wgrad n=4096",       "8B qkv dgrad n=4096",     "8B qkv wgrad n=4096"};
  EXPECT_EQ(labels(shapes), expected);
  // The signatures PyTorch records for a training step (the LLM benchmark's, see shapes.hpp).
  EXPECT_EQ(shapes[4].problem.op_signature(), "GemmTunableOp_BFloat16_TN");
  EXPECT_EQ(shapes[4].problem.params_signature(), "tn_4096_4096_14336_ld_14336_14336_4096");
  EXPECT_EQ(shapes[5].problem.params_signature(), "nn_14336_4096_4096_ld_14336_4096_14336");
  EXPECT_EQ(shapes[6].problem.params_signature(), "nt_14336_4096_4096_ld_14336_4096_14336");
  EXPECT_EQ(training_step_shapes("70B", DType::Float16)[0].problem.op_signature(),
            "GemmTunableOp_Half_TN");
}

TEST(LlmTrainingStep, AnUnknownModelHasNoStep) {
  EXPECT_TRUE(training_step_shapes("13B", DType::BFloat16).empty());
}

TEST(LlmTrainingStep, EqualShapesAreOneDistinctGemmAtEachOfTheirPositions) {
  const TrainingStep step = make_training_step(training_step_shapes("1B", DType::BFloat16));
  ASSERT_EQ(step.order.size(), 15u);
  ASSERT_EQ(step.distinct.size(), 12u);
  const std::vector<std::size_t> order{0, 1, 2, 2, 3, 4, 5, 6, 7, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(step.order, order);
  EXPECT_EQ(step.distinct[2].label(), "1B gate/up fwd n=4096");
  EXPECT_EQ(step.distinct[7].label(), "1B gate/up wgrad n=4096");
}

}  // namespace
}  // namespace gemmtune::bench
