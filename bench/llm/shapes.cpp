#include "bench/llm/shapes.hpp"

#include <fmt/format.h>

#include <array>
#include <initializer_list>

namespace gemmtune::bench {
namespace {

struct Model {
  std::string_view name;
  std::int64_t hidden, qkv, mlp;
};

// Llama-3.2-1B: 32 heads of 64, 8 KV heads; Llama-3-8B: 32 of 128, 8 KV; Llama-3-70B: 64 of 128, 8
// KV.
constexpr Model kLlama1B{"1B", 2048, 3072, 8192};
constexpr Model kLlama8B{"8B", 4096, 6144, 14336};
constexpr Model kLlama70B{"70B", 8192, 10240, 28672};

struct Linear {
  std::string_view name;
  std::int64_t in, out;
};

std::array<Linear, 4> linears(const Model& m) {
  return {{{"qkv", m.hidden, m.qkv},
           {"o", m.hidden, m.hidden},
           {"gate/up", m.hidden, m.mlp},
           {"down", m.mlp, m.hidden}}};
}

constexpr std::int64_t kPrefillTokens = 4096;
constexpr std::int64_t kTrainingTokens = 4096;
constexpr std::array<std::int64_t, 4> kDecodeTokens{1, 8, 32, 64};

std::string_view op_name(DType dtype) {
  return dtype == DType::BFloat16 ? "BFloat16" : "Half";
}

LlmShape forward(const Model& m, const Linear& l, DType dtype, std::int64_t tokens) {
  LlmShape s{std::string(m.name),
             std::string(l.name),
             "fwd",
             tokens >= kPrefillTokens ? GemmClass::Prefill : GemmClass::Decode,
             tokens,
             {}};
  s.problem =
      parse_problem(fmt::format("GemmTunableOp_{}_TN", op_name(dtype)),
                    fmt::format("tn_{}_{}_{}_ld_{}_{}_{}", l.out, tokens, l.in, l.in, l.in, l.out));
  return s;
}

LlmShape input_grad(const Model& m, const Linear& l, DType dtype, std::int64_t tokens) {
  LlmShape s{std::string(m.name), std::string(l.name), "dgrad", GemmClass::Backward, tokens, {}};
  s.problem =
      parse_problem(fmt::format("GemmTunableOp_{}_NN", op_name(dtype)),
                    fmt::format("nn_{}_{}_{}_ld_{}_{}_{}", l.in, tokens, l.out, l.in, l.out, l.in));
  return s;
}

LlmShape weight_grad(const Model& m, const Linear& l, DType dtype, std::int64_t tokens) {
  LlmShape s{std::string(m.name), std::string(l.name), "wgrad", GemmClass::Backward, tokens, {}};
  s.problem =
      parse_problem(fmt::format("GemmTunableOp_{}_NT", op_name(dtype)),
                    fmt::format("nt_{}_{}_{}_ld_{}_{}_{}", l.in, l.out, tokens, l.in, l.out, l.in));
  return s;
}

}  // namespace

std::string_view to_string(GemmClass c) {
  switch (c) {
    case GemmClass::Decode:
      return "decode";
    case GemmClass::Prefill:
      return "prefill";
    case GemmClass::Backward:
      return "bwd";
  }
  return "?";
}

std::string LlmShape::label() const {
  return fmt::format("{} {} {} n={}", model, layer, pass, tokens);
}

std::vector<LlmShape> llm_shapes(bool quick) {
  std::vector<LlmShape> out;
  if (quick) {
    const auto l = linears(kLlama8B);
    out.push_back(forward(kLlama8B, l[0], DType::BFloat16, 1));
    out.push_back(forward(kLlama8B, l[2], DType::Float16, 8));
    out.push_back(forward(kLlama8B, l[3], DType::BFloat16, 32));
    out.push_back(forward(kLlama8B, l[1], DType::BFloat16, kPrefillTokens));
    out.push_back(input_grad(kLlama8B, l[3], DType::BFloat16, kTrainingTokens));
    out.push_back(weight_grad(kLlama8B, l[0], DType::Float16, kTrainingTokens));
    return out;
  }
  // Decode: every model in bf16, the 8B in fp16 too.
  for (const auto& [model, dtype] :
       {std::pair{kLlama1B, DType::BFloat16}, std::pair{kLlama8B, DType::BFloat16},
        std::pair{kLlama70B, DType::BFloat16}, std::pair{kLlama8B, DType::Float16}}) {
    for (const Linear& l : linears(model)) {
      for (std::int64_t tokens : kDecodeTokens) out.push_back(forward(model, l, dtype, tokens));
    }
  }
  // Prefill: likewise.
  for (const auto& [model, dtype] :
       {std::pair{kLlama1B, DType::BFloat16}, std::pair{kLlama8B, DType::BFloat16},
        std::pair{kLlama70B, DType::BFloat16}, std::pair{kLlama8B, DType::Float16}}) {
    for (const Linear& l : linears(model)) {
      out.push_back(forward(model, l, dtype, kPrefillTokens));
    }
  }
  // Backward of a training step: 1B and 8B in bf16, 8B in fp16, and the 70B's attention
  // projections last (its MLP gradients alone take seconds to tune and check).
  for (const auto& [model, dtype] :
       {std::pair{kLlama1B, DType::BFloat16}, std::pair{kLlama8B, DType::BFloat16},
        std::pair{kLlama8B, DType::Float16}}) {
    for (const Linear& l : linears(model)) {
      out.push_back(input_grad(model, l, dtype, kTrainingTokens));
      out.push_back(weight_grad(model, l, dtype, kTrainingTokens));
    }
  }
  for (const Linear& l : linears(kLlama70B)) {
    if (l.name != "qkv" && l.name != "o") continue;
    out.push_back(input_grad(kLlama70B, l, DType::BFloat16, kTrainingTokens));
    out.push_back(weight_grad(kLlama70B, l, DType::BFloat16, kTrainingTokens));
  }
  return out;
}

std::vector<LlmShape> training_step_shapes(std::string_view model, DType dtype) {
  std::vector<LlmShape> out;
  const Model* m = nullptr;
  for (const Model* candidate : {&kLlama1B, &kLlama8B, &kLlama70B}) {
    if (candidate->name == model) m = candidate;
  }
  if (m == nullptr) return out;
  const auto l = linears(*m);
  // gate and up are two linears of one shape (l[2]), each with its own GEMMs.
  const std::array<const Linear*, 5> forward_order{&l[0], &l[1], &l[2], &l[2], &l[3]};
  for (const Linear* linear : forward_order) {
    out.push_back(forward(*m, *linear, dtype, kPrefillTokens));
  }
  for (auto it = forward_order.rbegin(); it != forward_order.rend(); ++it) {
    out.push_back(input_grad(*m, **it, dtype, kTrainingTokens));
    out.push_back(weight_grad(*m, **it, dtype, kTrainingTokens));
  }
  return out;
}

}  // namespace gemmtune::bench
