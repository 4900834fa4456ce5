#include "drivers/bench/bench_case.hpp"

#include <fmt/format.h>

#include <array>

namespace gemmtune::bench {
namespace {

struct Named {
  std::string_view name;
  DType dtype;
};

// micro_perf's names that gemmtune's own table does not know (core/utils.py, ops/gemm_ops.py).
constexpr std::array kMicroPerfNames{
    Named{"tfloat32", DType::TF32},
    Named{"float8", DType::Float8E4M3},
};

// Known to micro_perf, without a GEMM here.
constexpr std::array<std::string_view, 8> kIntegerNames{"int8",  "int4",  "int16",  "int32",
                                                        "uint8", "int64", "uint16", "uint32"};

}  // namespace

std::string BenchCase::shape_text() const {
  return fmt::format("{}x{}x{}", m, k, n);
}

std::optional<DTypeName> dtype_from_workload_name(std::string_view name) {
  for (const auto& n : kMicroPerfNames) {
    if (n.name == name) return DTypeName{n.dtype, {}};
  }
  if (auto d = dtype_from_cli_name(name); d && !info(*d).is_complex) return DTypeName{*d, {}};
  for (const auto& n : kIntegerNames) {
    if (n == name) {
      return DTypeName{
          std::nullopt,
          fmt::format("gemmtune has no {} GEMM (integer types are not supported)", name)};
    }
  }
  return std::nullopt;
}

std::string known_dtype_names() {
  std::string out =
      "float32 (float), tfloat32 (tf32), float16 (half), bfloat16, float64, float8 "
      "(float8_e4m3fn), float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz; skipped: ";
  for (std::size_t i = 0; i < kIntegerNames.size(); ++i) {
    out += (i ? ", " : "") + std::string(kIntegerNames[i]);
  }
  return out;
}

Problem problem_for_case(const BenchCase& c) {
  const DType dtype = c.gemm_dtype.value_or(DType::Float32);
  if (info(dtype).is_float8) {
    Problem p = Problem::make(OpKind::ScaledGemm, dtype, Transpose::T, Transpose::N, c.n, c.m, c.k);
    return p;
  }
  return Problem::make(OpKind::Gemm, dtype, Transpose::N, Transpose::N, c.n, c.m, c.k);
}

}  // namespace gemmtune::bench
