#include "validator/pytorch_validators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "tuner/error.hpp"

namespace gemmtune {

std::optional<std::string> why_pytorch_reads_otherwise(std::string_view value) {
  // PyTorch's ReadFile splits the line with getline(..., ','), which drops an empty last field
  // (the key is then missing) and ends the value at a comma.
  if (value.empty()) {
    return std::string(
        "an empty value, which PyTorch's reader drops with the field, so the key goes missing "
        "and the file fails its check");
  }
  if (const auto comma = value.find(','); comma != std::string_view::npos) {
    return fmt::format("PyTorch's reader ends the value at the comma and reads '{}'",
                       value.substr(0, comma));
  }
  return std::nullopt;
}

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
    const std::string value = text.substr(eq + 1);
    if (const auto why = why_pytorch_reads_otherwise(value)) {
      throw InputError(fmt::format("--validator '{}': {}", text, *why));
    }
    // A line break would end the validator's line in the file and start a bad one; the reader
    // trims spaces round a value, so one written with them would not read back as written.
    for (const std::string* part : {&key, &value}) {
      const bool control = std::any_of(part->begin(), part->end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      });
      if (control) {
        throw InputError(fmt::format(
            "--validator '{}' must not contain line breaks, tabs or other control characters",
            text));
      }
      const bool padded =
          !part->empty() && (std::isspace(static_cast<unsigned char>(part->front())) != 0 ||
                             std::isspace(static_cast<unsigned char>(part->back())) != 0);
      if (padded) {
        throw InputError(fmt::format(
            "--validator '{}': the key and the value must not begin or end with spaces", text));
      }
    }
    env.set(key, value);
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
    // PyTorch reads the fields with sscanf, where an overflowing number is undefined and a
    // missing one fails the lookup: the name must be exactly the format, every field in range.
    if (!cuda::parse_algo_name(solution)) {
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
