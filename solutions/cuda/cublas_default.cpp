#include "solutions/cuda/cublas_default.hpp"

#include <fmt/format.h>

#include "solutions/cuda/aligned_copies.hpp"
#include "solutions/cuda/cublas_handle.hpp"
#include "solutions/cuda/cublaslt_solution.hpp"
#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_types.hpp"
#include "solutions/cuda/default_with_fallback.hpp"
#include "solutions/cuda/gemm_then_bias.hpp"
#include "solutions/cuda/scaled_gemm_fallback.hpp"

namespace gemmtune::cuda {
namespace {

const std::string kDefaultName(kDefaultSolutionName);

// cublasGemmEx / cublasGemmStridedBatchedEx with CUBLAS_GEMM_DEFAULT.
class CublasGemmSolution final : public Solution {
 public:
  explicit CublasGemmSolution(const Problem& problem)
      : problem_(problem), why_not_(cuda_unsupported_reason(problem)) {
    if (!why_not_) types_ = gemm_types(problem);
  }

  const std::string& name() const override { return kDefaultName; }

  Support supports(const Problem& problem) const override {
    if (why_not_) return Support::no(*why_not_);
    if (!(problem == problem_)) return Support::no("Default was built for another problem");
    return Support::yes();
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream_ptr) override {
    if (const Support s = supports(problem); !s) return RunStatus::failure(s.reason);
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const ScopedDevice device(device_of(stream));
    cublasHandle_t handle = cublas_handle();
    if (const cublasStatus_t st = cublasSetStream(handle, stream); st != CUBLAS_STATUS_SUCCESS) {
      return RunStatus::failure(call_failed_message("cublasSetStream", st));
    }
    const Problem& p = problem_;
    const Scalars s = make_scalars(types_.scale, ops.alpha, ops.beta);
    const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
    const int lda = static_cast<int>(p.blas_lda());
    const int ldb = static_cast<int>(p.blas_ldb());
    const int ldc = static_cast<int>(p.blas_ldc());
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    const char* call = "cublasGemmEx";
    const cudaError_t pending = cudaPeekAtLastError();
    if (p.op == OpKind::GemmStridedBatched) {
      call = "cublasGemmStridedBatchedEx";
      status = cublasGemmStridedBatchedEx(
          handle, to_cublas(p.transa), to_cublas(p.transb), m, n, k, s.alpha, ops.a, types_.a, lda,
          p.batch_stride_a(), ops.b, types_.b, ldb, p.batch_stride_b(), s.beta, ops.c, types_.d,
          ldc, p.batch_stride_c(), static_cast<int>(p.batch), types_.compute, CUBLAS_GEMM_DEFAULT);
    } else {
      status = cublasGemmEx(handle, to_cublas(p.transa), to_cublas(p.transb), m, n, k, s.alpha,
                            ops.a, types_.a, lda, ops.b, types_.b, ldb, s.beta, ops.c, types_.d,
                            ldc, types_.compute, CUBLAS_GEMM_DEFAULT);
    }
    if (status != CUBLAS_STATUS_SUCCESS)
      return RunStatus::failure(call_failed_message(call, status));
    const cudaError_t launch = launch_error_since(pending);
    if (launch != cudaSuccess) return RunStatus::failure(call_failed_message(call, launch));
    return RunStatus::success();
  }

 private:
  Problem problem_;
  std::optional<std::string> why_not_;
  GemmTypes types_;
};

// cuBLASLt's heuristic #0 for the problem, or an LtSolution saying why there is none.
std::unique_ptr<LtSolution> make_lt_default(const Problem& problem,
                                            std::size_t max_workspace_bytes) {
  if (auto why = cuda_unsupported_reason(problem)) {
    return std::make_unique<LtSolution>(kDefaultName, problem, *why);
  }
  auto matmul = std::make_shared<LtMatmul>(problem);
  std::string why;
  LtMatmul::HeuristicQuery first;
  first.count = 1;
  first.max_workspace_bytes = max_workspace_bytes;
  const auto proposals = matmul->heuristic(first, &why);
  if (proposals.empty()) {
    return std::make_unique<LtSolution>(
        kDefaultName, problem,
        fmt::format("cuBLASLt has no algorithm for {},{}: {}", problem.op_signature(),
                    problem.params_signature(), why));
  }
  return std::make_unique<LtSolution>(kDefaultName, std::move(matmul), proposals.front().algo,
                                      proposals.front().workspaceSize);
}

}  // namespace

std::unique_ptr<Solution> make_default_solution(const Problem& problem,
                                                std::size_t max_workspace_bytes) {
  switch (problem.op) {
    case OpKind::GemmAndBias:
      return make_default_with_fallback(
          problem, make_lt_default(problem, max_workspace_bytes),
          make_gemm_then_bias(problem, std::make_unique<CublasGemmSolution>(without_bias(problem))),
          FallbackFor::RefusedCallsAndNoAlgorithm);
    case OpKind::ScaledGemm: {
      // The fallback runs the same algorithm on aligned copies (a copy of the solution, sharing
      // its descriptors: the two never run at once), and the plain kernel where it cannot.
      auto lt = make_lt_default(problem, max_workspace_bytes);
      auto same = std::make_unique<LtSolution>(*lt);
      return make_default_with_fallback(
          problem, std::move(lt),
          make_aligned_copies(problem, std::move(same), make_scaled_gemm_fallback(problem)),
          FallbackFor::RefusedCalls);
    }
    default:
      return std::make_unique<CublasGemmSolution>(problem);
  }
}

std::vector<std::unique_ptr<Solution>> CublasProvider::enumerate(const Problem& problem,
                                                                 const SearchOptions& options) {
  std::vector<std::unique_ptr<Solution>> out;
  // Under the tuning's workspace limit: asked with more, heuristic #0 could need more than the
  // tuner then allows it, and the problem would have no reference.
  out.push_back(make_default_solution(problem, options.max_workspace_bytes));
  return out;
}

std::unique_ptr<Solution> CublasProvider::from_name(const Problem& problem, std::string_view name) {
  if (name != kDefaultSolutionName) return nullptr;
  return make_default_solution(problem);
}

std::unique_ptr<Solution> CublasProvider::reference(const Problem& problem,
                                                    const SearchOptions& options) {
  // As enumerate's: under the tuning's workspace limit (`--providers cublaslt
  // --workspace-mb 4` still has a reference).
  return make_default_solution(problem, options.max_workspace_bytes);
}

}  // namespace gemmtune::cuda
