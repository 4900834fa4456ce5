#include "tuner/dtype.hpp"

#include <algorithm>
#include <array>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr std::array kDTypes{
    DTypeInfo{DType::Float32, "float", "Float", "float32", 4, false, false},
    DTypeInfo{DType::TF32, "tf32", "Float", "tf32", 4, false, false},
    DTypeInfo{DType::Float64, "double", "Double", "float64", 8, false, false},
    DTypeInfo{DType::BFloat16, "BFloat16", "BFloat16", "bfloat16", 2, false, false},
    DTypeInfo{DType::Float16, "Half", "Half", "float16", 2, false, false},
    DTypeInfo{DType::Float8E4M3, "Float8_e4m3fn", "Float8_e4m3fn", "float8_e4m3fn", 1, true, false},
    DTypeInfo{DType::Float8E5M2, "Float8_e5m2", "Float8_e5m2", "float8_e5m2", 1, true, false},
    DTypeInfo{DType::Float8E4M3Fnuz, "Float8_e4m3fnuz", "Float8_e4m3fnuz", "float8_e4m3fnuz", 1,
              true, false},
    DTypeInfo{DType::Float8E5M2Fnuz, "Float8_e5m2fnuz", "Float8_e5m2fnuz", "float8_e5m2fnuz", 1,
              true, false},
    DTypeInfo{DType::ComplexFloat32, "c10::complex<float>", "ComplexFloat", "complex64", 8, false,
              true},
    DTypeInfo{DType::ComplexFloat64, "c10::complex<double>", "ComplexDouble", "complex128", 16,
              false, true},
};

struct Alias {
  std::string_view name;
  DType dtype;
};

constexpr std::array kCliAliases{
    Alias{"bf16", DType::BFloat16},   Alias{"fp16", DType::Float16},
    Alias{"half", DType::Float16},    Alias{"fp32", DType::Float32},
    Alias{"float", DType::Float32},   Alias{"fp64", DType::Float64},
    Alias{"double", DType::Float64},  Alias{"fp8_e4m3", DType::Float8E4M3},
    Alias{"fp8_e5m2", DType::Float8E5M2},
};

template <typename Field>
std::optional<DType> find_by(std::string_view name, Field field) {
  auto it = std::find_if(kDTypes.begin(), kDTypes.end(),
                         [&](const DTypeInfo& d) { return d.*field == name; });
  if (it == kDTypes.end()) return std::nullopt;
  return it->dtype;
}

}  // namespace

std::span<const DTypeInfo> all_dtypes() { return kDTypes; }

const DTypeInfo& info(DType dtype) {
  for (const auto& d : kDTypes) {
    if (d.dtype == dtype) return d;
  }
  GEMMTUNE_THROW("unknown DType value {}", static_cast<int>(dtype));
}

std::optional<DType> dtype_from_pytorch_name(std::string_view name) {
  return find_by(name, &DTypeInfo::pytorch_name);
}

std::optional<DType> dtype_from_scalar_name(std::string_view name) {
  // "Float" is ambiguous between float32 and tf32 storage; storage is what a bias needs.
  if (name == "Float") return DType::Float32;
  return find_by(name, &DTypeInfo::scalar_name);
}

std::optional<DType> dtype_from_cli_name(std::string_view name) {
  if (auto d = find_by(name, &DTypeInfo::cli_name)) return d;
  for (const auto& alias : kCliAliases) {
    if (alias.name == name) return alias.dtype;
  }
  return std::nullopt;
}

}  // namespace gemmtune
