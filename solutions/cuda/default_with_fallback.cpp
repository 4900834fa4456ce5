#include "solutions/cuda/gemm_and_bias_default.hpp"

#include <fmt/format.h>

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

class GemmAndBiasDefault final : public Solution {
 public:
  GemmAndBiasDefault(const Problem& problem, std::unique_ptr<Solution> lt,
                     std::unique_ptr<Solution> plain_gemm)
      : problem_(problem),
        plain_problem_(without_bias(problem)),
        lt_(std::move(lt)),
        plain_(std::move(plain_gemm)),
        add_type_(bias_add_type(problem.c_type)),
        lt_runs_(lt_->supports(problem_)),
        fallback_runs_(add_type_.has_value() && problem_.batch == 1 &&
                       plain_->supports(plain_problem_)) {}

  const std::string& name() const override { return lt_->name(); }

  Support supports(const Problem& problem) const override {
    Support lt = lt_->supports(problem);
    if (lt || !(problem == problem_) || !fallback_runs_) return lt;
    return Support::yes();
  }

  std::size_t workspace_bytes(const Problem& problem) const override {
    return lt_->workspace_bytes(problem);
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream) override {
    std::string refusal;
    if (lt_runs_) {  // LtSolution::run turns another problem down itself
      RunStatus status = lt_->run(problem, ops, stream);
      if (!status.refused || !fallback_runs_) return status;
      refusal = std::move(status.error);
    } else if (const Support s = supports(problem); !s) {
      return RunStatus::failure(s.reason);
    }
    const auto fail = [&](const std::string& what) {
      return RunStatus::failure(
          refusal.empty()
              ? what
              : fmt::format("cuBLASLt's algorithm refused ({}); then {}", refusal, what));
    };
    if (ops.bias == nullptr) return fail("GemmAndBias without a bias pointer");
    const RunStatus gemm = plain_->run(plain_problem_, ops, stream);
    if (!gemm) return fail(gemm.error);
    const auto s = static_cast<cudaStream_t>(stream);
    const ScopedDevice device(device_of(s));
    const cudaError_t e =
        launch_add_bias(*add_type_, ops.c, problem_.ldc, ops.bias, problem_.m, problem_.n, s);
    if (e != cudaSuccess) return fail(call_failed_message("the bias kernel's launch", e));
    return RunStatus::success();
  }

 private:
  Problem problem_;
  Problem plain_problem_;
  std::unique_ptr<Solution> lt_;
  std::unique_ptr<Solution> plain_;
  std::optional<BiasAddType> add_type_;
  bool lt_runs_;        // cuBLASLt's heuristic #0 exists for the problem
  bool fallback_runs_;  // cublasGemmEx and the bias kernel can run it
};

}  // namespace

Problem without_bias(const Problem& problem) {
  Problem p = problem;
  p.op = OpKind::Gemm;
  p.bias_type.reset();
  return p;
}

std::unique_ptr<Solution> make_gemm_and_bias_default(const Problem& problem,
                                                     std::unique_ptr<Solution> lt,
                                                     std::unique_ptr<Solution> plain_gemm) {
  return std::make_unique<GemmAndBiasDefault>(problem, std::move(lt), std::move(plain_gemm));
}

}  // namespace gemmtune::cuda
