#include "solutions/cuda/gemm_then_bias.hpp"

#include <optional>
#include <string>

#include "solutions/cuda/add_bias.hpp"
#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune::cuda {
namespace {

std::optional<BiasAddType> bias_add_type(DType output) {
  switch (output) {
    case DType::Float32:
    case DType::TF32:
      return BiasAddType::F32;
    case DType::Float64:
      return BiasAddType::F64;
    case DType::Float16:
      return BiasAddType::F16;
    case DType::BFloat16:
      return BiasAddType::BF16;
    default:
      return std::nullopt;
  }
}

class GemmThenBias final : public Solution {
 public:
  GemmThenBias(const Problem& problem, std::unique_ptr<Solution> plain_gemm)
      : problem_(problem),
        plain_problem_(without_bias(problem)),
        plain_(std::move(plain_gemm)),
        add_type_(bias_add_type(problem.c_type)) {}

  const std::string& name() const override { return name_; }

  Support supports(const Problem& problem) const override {
    if (!(problem == problem_)) return Support::no("built for another problem");
    if (problem.op != OpKind::GemmAndBias) return Support::no("not a GemmAndBias");
    if (!add_type_) return Support::no("no bias kernel for this output type");
    if (problem.batch != 1) return Support::no("batched");
    return plain_->supports(plain_problem_);
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream) override {
    if (const Support s = supports(problem); !s) return RunStatus::failure(s.reason);
    if (ops.bias == nullptr) return RunStatus::failure("GemmAndBias without a bias pointer");
    const RunStatus gemm = plain_->run(plain_problem_, ops, stream);
    if (!gemm) return gemm;
    const auto s = static_cast<cudaStream_t>(stream);
    const ScopedDevice device(device_of(s));
    const cudaError_t e =
        launch_add_bias(*add_type_, ops.c, problem_.blas_ldc(), ops.bias, problem_.m, problem_.n,
                        s);  // blas_ldc: PyTorch records ldc = 1 for n = 1
    if (e != cudaSuccess) {
      return RunStatus::failure(call_failed_message("the bias kernel's launch", e));
    }
    return RunStatus::success();
  }

 private:
  const std::string name_ = "cublasGemmEx then bias kernel";
  Problem problem_;
  Problem plain_problem_;
  std::unique_ptr<Solution> plain_;
  std::optional<BiasAddType> add_type_;
};

}  // namespace

Problem without_bias(const Problem& problem) {
  Problem p = problem;
  p.op = OpKind::Gemm;
  p.bias_type.reset();
  return p;
}

std::unique_ptr<Solution> make_gemm_then_bias(const Problem& problem,
                                              std::unique_ptr<Solution> plain_gemm) {
  return std::make_unique<GemmThenBias>(problem, std::move(plain_gemm));
}

}  // namespace gemmtune::cuda
