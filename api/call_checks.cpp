#include "api/call_checks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gemmtune::api {

std::optional<std::string> missing_operand(const Problem& problem, const Operands& operands) {
  if (operands.a == nullptr) return std::string("A is a null pointer");
  if (operands.b == nullptr) return std::string("B is a null pointer");
  if (operands.c == nullptr) return std::string("C is a null pointer");
  if (problem.op == OpKind::GemmAndBias && operands.bias == nullptr) {
    return std::string("GemmAndBias without a bias pointer");
  }
  if (problem.op == OpKind::ScaledGemm &&
      (operands.scale_a == nullptr || operands.scale_b == nullptr)) {
    return std::string("ScaledGemm without its scales (scale_a and scale_b)");
  }
  return std::nullopt;
}

std::optional<std::string> invalid_limit(std::string_view name, double value) {
  if (std::isfinite(value) && value >= 0) return std::nullopt;
  return fmt::format("{} must be a finite number >= 0, not {}", name, value);
}

std::optional<std::string> invalid_call(const Problem& problem, const Operands& operands) {
  if (auto why = missing_operand(problem, operands)) return why;
  return problem.invalid_reason();
}

}  // namespace gemmtune::api
