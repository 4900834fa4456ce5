// A training step as the step replay runs it: its distinct GEMMs, and for every position in the
// step which of them runs there (gate and up are two GEMMs of one shape: one distinct GEMM that
// runs at two positions, with one solution per policy).
#pragma once

#include <cstddef>
#include <vector>

#include "bench/llm/shapes.hpp"

namespace gemmtune::bench {

struct TrainingStep {
  std::vector<LlmShape> distinct;
  std::vector<std::size_t> order;  // indices into `distinct`, in run order
};

// Shapes with the same label and signatures are one distinct GEMM, in the order first met.
TrainingStep make_training_step(const std::vector<LlmShape>& step_shapes);

}  // namespace gemmtune::bench
