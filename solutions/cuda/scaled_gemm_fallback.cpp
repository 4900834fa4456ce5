#include "solutions/cuda/scaled_gemm_fallback.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_types.hpp"
#include "solutions/cuda/pointer_alignment.hpp"
#include "solutions/cuda/scaled_gemm_kernel.hpp"

namespace gemmtune::cuda {
namespace {

std::optional<ScaledKernelType> kernel_type(DType type) {
  switch (type) {
    case DType::Float32:
      return ScaledKernelType::F32;
    case DType::Float16:
      return ScaledKernelType::F16;
    case DType::BFloat16:
      return ScaledKernelType::BF16;
    case DType::Float8E4M3:
      return ScaledKernelType::E4M3;
    case DType::Float8E5M2:
      return ScaledKernelType::E5M2;
    default:
      return std::nullopt;
  }
}

class ScaledGemmFallback final : public Solution {
 public:
  explicit ScaledGemmFallback(const Problem& problem) : problem_(problem) {}

  const std::string& name() const override { return name_; }

  Support supports(const Problem& p) const override {
    if (!(p == problem_)) return Support::no("built for another problem");
    if (auto why = cuda_unsupported_reason(p)) return Support::no(*why);
    if (p.op != OpKind::ScaledGemm) return Support::no("not a ScaledGemm");
    if (p.transa != Transpose::T || p.transb != Transpose::N) return Support::no("not tn");
    if (p.batch != 1) return Support::no("batched");
    const auto a = kernel_type(p.a_type), b = kernel_type(p.b_type), d = kernel_type(p.c_type);
    if (!a || !b || !info(p.a_type).is_float8 || !info(p.b_type).is_float8) {
      return Support::no("A and B are not fp8");
    }
    if (!d) return Support::no(fmt::format("no kernel writes {}", info(p.c_type).cli_name));
    if (p.bias_type) {
      const auto bias = kernel_type(*p.bias_type);
      if (!bias || info(*p.bias_type).is_float8) {
        return Support::no(fmt::format("no kernel adds a {} bias", info(*p.bias_type).cli_name));
      }
    }
    return Support::yes();
  }

  RunStatus run(const Problem& p, const Operands& ops, void* stream) override {
    if (const Support s = supports(p); !s) return RunStatus::failure(s.reason);
    ScaledGemmKernelArgs args;
    args.a_type = *kernel_type(p.a_type);
    args.b_type = *kernel_type(p.b_type);
    args.d_type = *kernel_type(p.c_type);
    if (p.bias_type) args.bias_type = *kernel_type(*p.bias_type);
    // Elements are read one at a time, so each needs only its own type's alignment.
    const auto misaligned = [](const void* pointer, std::size_t element) {
      return alignment_of(pointer) < element;
    };
    if (ops.scale_a == nullptr || ops.scale_b == nullptr) {
      return RunStatus::failure("ScaledGemm without its scale pointers");
    }
    if (p.bias_type && ops.bias == nullptr) {
      return RunStatus::failure("ScaledGemm with a bias type but no bias pointer");
    }
    if (misaligned(ops.scale_a, 4) || misaligned(ops.scale_b, 4) ||
        misaligned(ops.c, info(p.c_type).bytes) ||
        (p.bias_type && misaligned(ops.bias, info(*p.bias_type).bytes))) {
      return RunStatus::failure(
          "an operand is not aligned to its own element's size (the scales, C or the bias)");
    }
    if (info(p.c_type).is_float8 && ops.beta != 0.0) {
      return RunStatus::failure("a ScaledGemm with fp8 output takes beta = 0 only");
    }
    args.m = p.m;
    args.n = p.n;
    args.k = p.k;
    args.lda = p.blas_lda();
    args.ldb = p.blas_ldb();
    args.ldd = p.blas_ldc();
    args.a = ops.a;
    args.b = ops.b;
    args.d = ops.c;
    args.bias = p.bias_type ? ops.bias : nullptr;
    args.scale_a = ops.scale_a;
    args.scale_b = ops.scale_b;
    args.rowwise = p.rowwise;
    args.alpha = static_cast<float>(ops.alpha);
    args.beta = static_cast<float>(ops.beta);
    const auto s = static_cast<cudaStream_t>(stream);
    const ScopedDevice device(device_of(s));
    const cudaError_t e = launch_scaled_gemm_kernel(args, s);
    if (e != cudaSuccess) {
      return RunStatus::failure(call_failed_message("gemmtune's fp8 kernel's launch", e));
    }
    return RunStatus::success();
  }

 private:
  const std::string name_ = "gemmtune fp8 kernel";
  Problem problem_;
};

}  // namespace

std::unique_ptr<Solution> make_scaled_gemm_fallback(const Problem& problem) {
  return std::make_unique<ScaledGemmFallback>(problem);
}

}  // namespace gemmtune::cuda
