#include "validator/pytorch_validators.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <utility>

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

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Major and minor of a PT_VERSION value ("2.11.0", "2.14.0a0+git1234", "2.14.0.dev20261101+cu130").
std::optional<std::pair<int, int>> major_minor(std::string_view version) {
  int major = 0;
  int minor = 0;
  char dot = 0;
  const std::string text(version);
  if (std::sscanf(text.c_str(), "%d%c%d", &major, &dot, &minor) != 3 || dot != '.') {
    return std::nullopt;
  }
  return std::make_pair(major, minor);
}

// Whether `name` is exactly PyTorch's cuBLASLt format,
// Gemm_Cublaslt_id_%d_tile_%u_stages_%u_splitk_%d_red_%u_swizzle_%u_custom_%u_inner_%hu_cluster_%hu,
// every number within its field's type: PyTorch reads the fields with sscanf, where an
// overflowing number is undefined and a missing one fails the lookup.
bool is_cublaslt_name(std::string_view name) {
  struct Field {
    std::string_view label;
    long long min;
    long long max;
  };
  constexpr long long kInt = 2147483647LL;
  constexpr Field kFields[] = {
      {"id", -kInt - 1, kInt},     {"tile", 0, 4294967295LL}, {"stages", 0, 4294967295LL},
      {"splitk", -kInt - 1, kInt}, {"red", 0, 4294967295LL},  {"swizzle", 0, 4294967295LL},
      {"custom", 0, 4294967295LL}, {"inner", 0, 65535},       {"cluster", 0, 65535},
  };
  std::string_view rest = name;
  if (!starts_with(rest, "Gemm_Cublaslt")) return false;
  rest.remove_prefix(std::string_view("Gemm_Cublaslt").size());
  for (const Field& field : kFields) {
    if (!starts_with(rest, "_") || !starts_with(rest.substr(1), field.label) ||
        rest.substr(1 + field.label.size(), 1) != "_") {
      return false;
    }
    rest.remove_prefix(field.label.size() + 2);
    const bool negative = starts_with(rest, "-");
    std::size_t digits = negative ? 1 : 0;
    long long value = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
      value = value * 10 + (rest[digits] - '0');
      if (value > 4294967296LL) return false;
      ++digits;
    }
    if (digits == (negative ? 1u : 0u)) return false;
    if (negative) value = -value;
    if (value < field.min || value > field.max) return false;
    rest.remove_prefix(digits);
  }
  return rest.empty();
}

bool is_rocm(const Environment& validators) {
  return validators.contains("ROCM_VERSION") || validators.contains("HIPBLASLT_VERSION") ||
         validators.contains("GCN_ARCH_NAME");
}

}  // namespace

void require_pytorch_version(const Environment& validators) {
  if (!validators.contains("PT_VERSION")) {
    throw InputError(
        "the validators for PyTorch have no PT_VERSION, and PyTorch loads no results file "
        "without it: give a results file PyTorch wrote (--for-pytorch FILE) or add "
        "--validator PT_VERSION=<torch.__version__>");
  }
}

std::optional<std::string> why_pytorch_cannot_run(std::string_view solution,
                                                  const Environment& validators) {
  if (solution == "Default") return std::nullopt;
  if (starts_with(solution, "Gemm_Hipblaslt_") || starts_with(solution, "Gemm_Rocblas_")) {
    if (is_rocm(validators)) return std::nullopt;
    return std::string(
        "hipBLASLt and rocBLAS solutions run on ROCm only, and the validators are "
        "a CUDA build's");
  }
  if (starts_with(solution, "Gemm_Cublaslt_")) {
    if (!is_cublaslt_name(solution)) {
      return std::string(
          "not a cuBLASLt name in PyTorch's format (Gemm_Cublaslt_id_…_cluster_…, "
          "every field in range)");
    }
    if (is_rocm(validators)) {
      return std::string("cuBLASLt solutions run on CUDA only, and the validators are ROCm's");
    }
    const auto version = validators.get("PT_VERSION").value_or("");
    const auto parsed = major_minor(version);
    if (!parsed) {
      return fmt::format(
          "PT_VERSION '{}' is not a version gemmtune can read, and PyTorch runs "
          "cuBLASLt solutions only from 2.14",
          version);
    }
    if (*parsed < std::make_pair(2, 14)) {
      return fmt::format(
          "PyTorch {} knows only Default on CUDA; cuBLASLt solutions need 2.14 "
          "or later",
          version);
    }
    return std::nullopt;
  }
  return std::string("a gemmtune solution, which PyTorch does not have");
}

}  // namespace gemmtune
