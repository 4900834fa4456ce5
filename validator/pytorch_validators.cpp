#include "validator/pytorch_validators.hpp"

#include <fmt/format.h>

#include "tuner/error.hpp"

namespace gemmtune {

Environment environment_from_assignments(const std::vector<std::string>& assignments) {
  Environment env;
  for (const auto& text : assignments) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(fmt::format("--validator '{}' must have the form KEY=VALUE", text));
    }
    const std::string key = text.substr(0, eq);
    if (key.find(',') != std::string::npos || text.find(',', eq) != std::string::npos) {
      throw InputError(fmt::format("--validator '{}' must not contain commas", text));
    }
    env.set(key, text.substr(eq + 1));
  }
  return env;
}

bool pytorch_understands_solution(std::string_view solution) {
  if (solution == "Default") return true;
  for (std::string_view prefix : {"Gemm_Cublaslt_", "Gemm_Hipblaslt_", "Gemm_Rocblas_"}) {
    if (solution.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

}  // namespace gemmtune
