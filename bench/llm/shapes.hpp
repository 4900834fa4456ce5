// The GEMMs of Llama-style transformer layers, as PyTorch records them for TunableOp.
//
// A linear layer y = x·Wᵀ with W of [out, in] and x of [tokens, in] reaches cuBLAS (column-major)
// as three GEMMs, checked against a real training step (tests/fixtures/mistral_bf16_untuned.csv):
//
//   forward       TN  tn_<out>_<tokens>_<in>_ld_<in>_<in>_<out>     decode (tokens 1…64), prefill
//   input grad    NN  nn_<in>_<tokens>_<out>_ld_<in>_<out>_<in>     backward
//   weight grad   NT  nt_<in>_<out>_<tokens>_ld_<in>_<out>_<in>     backward
//
// Each model contributes its four distinct linears: qkv (hidden → q+k+v with grouped KV heads),
// o (hidden → hidden), gate/up (hidden → mlp; HF keeps them as two layers of this shape) and
// down (mlp → hidden).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/problem.hpp"

namespace gemmtune::bench {

enum class GemmClass { Decode, Prefill, Backward };
std::string_view to_string(GemmClass c);

struct LlmShape {
  std::string model;  // "8B"
  std::string layer;  // "qkv", "o", "gate/up", "down"
  std::string pass;   // "fwd", "dgrad", "wgrad"
  GemmClass gemm_class = GemmClass::Decode;
  std::int64_t tokens = 0;
  Problem problem;

  // "8B gate/up fwd n=8"
  std::string label() const;
};

// The benchmark's set in run order (decode, then prefill, then backward; bf16 before fp16
// within each); `quick` is a handful of them for smoke tests.
std::vector<LlmShape> llm_shapes(bool quick);

// The 15 GEMMs of one transformer layer's training step (model "1B", "8B" or "70B", 4096 tokens)
// in the order they run: the forward GEMMs of qkv, o, gate, up and down, then the backward ones
// from down back to qkv, each linear's input gradient before its weight gradient. gate and up are
// two linears of one shape, so their GEMMs come twice. Empty for another model.
std::vector<LlmShape> training_step_shapes(std::string_view model, DType dtype);

}  // namespace gemmtune::bench
