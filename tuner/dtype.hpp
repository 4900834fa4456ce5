// DType: the element types a GEMM operand or its arithmetic can have, and the one table that
// maps each to the names PyTorch, the CLI and our stores use.
//
// `TF32` is float32 storage with TF32 tensor-core arithmetic; PyTorch records it as its own type
// name, so it is a distinct value here too.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace gemmtune {

enum class DType {
  Float32,
  TF32,
  Float64,
  BFloat16,
  Float16,
  Float8E4M3,
  Float8E5M2,
  Float8E4M3Fnuz,
  Float8E5M2Fnuz,
  ComplexFloat32,
  ComplexFloat64,
};

struct DTypeInfo {
  DType dtype;
  std::string_view pytorch_name;  // in op signatures: "BFloat16", "float", "tf32", ...
  std::string_view scalar_name;   // at::toString(ScalarType), used in ScaledGemm bias suffixes
  std::string_view cli_name;      // what users type: "bfloat16", "float32", ...
  std::size_t bytes;              // storage size of one element
  bool is_float8;
  bool is_complex;
};

std::span<const DTypeInfo> all_dtypes();
const DTypeInfo& info(DType dtype);

inline std::size_t element_bytes(DType dtype) { return info(dtype).bytes; }

std::optional<DType> dtype_from_pytorch_name(std::string_view name);
std::optional<DType> dtype_from_scalar_name(std::string_view name);
// Accepts the CLI names and the usual aliases (bf16, fp16, half, fp32, float, fp64, double, ...).
std::optional<DType> dtype_from_cli_name(std::string_view name);

inline std::string_view format_as(DType dtype) { return info(dtype).cli_name; }

}  // namespace gemmtune
