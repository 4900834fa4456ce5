#include "solutions/cuda/cublaslt_matmul.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "solutions/cuda/cublas_handle.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/pointer_alignment.hpp"

namespace gemmtune::cuda {
namespace {

// The bias pointer's alignment every cuBLASLt run asks for (see LtMatmul::run).
constexpr std::uint32_t kMinBiasAlignment = 4;

// Stand-in for device pointers the heuristic inspects only for alignment.
const void* const kAlignedPlaceholder = reinterpret_cast<const void*>(std::uintptr_t{1} << 12);

std::uint32_t required_alignment(const cublasLtMatmulAlgo_t& algo,
                                 cublasLtMatmulAlgoCapAttributes_t attribute) {
  std::uint32_t bytes = 0;
  std::size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, &bytes, sizeof(bytes), &written) !=
      CUBLAS_STATUS_SUCCESS) {
    return 1;
  }
  return bytes;
}

}  // namespace

LtMatmul::LtMatmul(const Problem& problem)
    : problem_(problem),
      types_(gemm_types(problem)),
      desc_(types_.compute, types_.scale),
      a_(types_.a, problem.a_rows(), problem.a_cols(), problem.blas_lda()),
      b_(types_.b, problem.b_rows(), problem.b_cols(), problem.blas_ldb()),
      c_(types_.c, problem.m, problem.n, problem.blas_ldc()),
      d_(types_.d, problem.m, problem.n, problem.blas_ldc()) {
  if (problem.batch > 1) {
    const int batch = static_cast<int>(problem.batch);
    a_.set_batch(batch, problem.batch_stride_a());
    b_.set_batch(batch, problem.batch_stride_b());
    c_.set_batch(batch, problem.batch_stride_c());
    d_.set_batch(batch, problem.batch_stride_c());
  }
  desc_.set(CUBLASLT_MATMUL_DESC_TRANSA, std::int32_t{to_cublas(problem.transa)});
  desc_.set(CUBLASLT_MATMUL_DESC_TRANSB, std::int32_t{to_cublas(problem.transb)});
  if (types_.bias) {
    desc_.set(CUBLASLT_MATMUL_DESC_EPILOGUE, std::uint32_t{CUBLASLT_EPILOGUE_BIAS});
    desc_.set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, std::int32_t{*types_.bias});
    desc_.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, kAlignedPlaceholder);
  }
  if (problem.op == OpKind::ScaledGemm) {
    desc_.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, kAlignedPlaceholder);
    desc_.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, kAlignedPlaceholder);
    if (problem.rowwise) {
      const std::int32_t mode = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
      desc_.set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode);
      desc_.set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode);
    }
  }
}

std::vector<cublasLtMatmulHeuristicResult_t> LtMatmul::heuristic(const HeuristicQuery& query,
                                                                 std::string* why) const {
  MatmulPreference preference(query.max_workspace_bytes);
  if (query.reduction_mask) {
    const std::uint32_t mask = *query.reduction_mask;
    GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference.get(), CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask, sizeof(mask)));
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(query.count));
  if (query.algo_id) {
    const std::uint32_t mode = CUBLASLT_SEARCH_LIMITED_BY_ALGO_ID;
    GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference.get(), CUBLASLT_MATMUL_PREF_SEARCH_MODE, &mode, sizeof(mode)));
    for (auto& r : results) {
      const cublasStatus_t init =
          cublasLtMatmulAlgoInit(cublaslt_handle(), types_.compute, types_.scale, types_.a,
                                 types_.b, types_.c, types_.d, *query.algo_id, &r.algo);
      if (init != CUBLAS_STATUS_SUCCESS) {
        if (why != nullptr) *why = call_failed_message("cublasLtMatmulAlgoInit", init);
        return {};
      }
    }
  }
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      cublaslt_handle(), desc_.get(), a_.get(), b_.get(), c_.get(), d_.get(), preference.get(),
      query.count, results.data(), &returned);
  // NOT_SUPPORTED (no algorithm fits) and INVALID_VALUE (a combination of types, epilogue and
  // layouts the library rejects) are answers about the problem, not failures of ours.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE) {
    if (why != nullptr) *why = call_failed_message("cublasLtMatmulAlgoGetHeuristic", status);
    return {};
  }
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw_cublas_error(__FILE__, __LINE__, "cublasLtMatmulAlgoGetHeuristic", status);
  }
  results.resize(static_cast<std::size_t>(std::max(returned, 0)));
  std::erase_if(results, [](const auto& r) { return r.state != CUBLAS_STATUS_SUCCESS; });
  if (results.empty() && why != nullptr) {
    *why = "cublasLtMatmulAlgoGetHeuristic proposed no algorithm";
  }
  return results;
}

cublasStatus_t LtMatmul::check(const cublasLtMatmulAlgo_t& algo,
                               std::size_t* workspace_bytes) const {
  cublasLtMatmulHeuristicResult_t result{};
  const cublasStatus_t status = cublasLtMatmulAlgoCheck(
      cublaslt_handle(), desc_.get(), a_.get(), b_.get(), c_.get(), d_.get(), &algo, &result);
  if (status == CUBLAS_STATUS_SUCCESS && workspace_bytes != nullptr) {
    *workspace_bytes = result.workspaceSize;
  }
  return status;
}

LtMatmul::Alignments LtMatmul::required_alignments(const cublasLtMatmulAlgo_t& algo) {
  return {required_alignment(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES),
          required_alignment(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES),
          required_alignment(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES),
          required_alignment(algo, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES)};
}

RunStatus LtMatmul::run(const cublasLtMatmulAlgo_t& algo, std::size_t algo_workspace_bytes,
                        const Alignments& need, const Operands& ops, cudaStream_t stream) {
  if (algo_workspace_bytes > 0 && ops.workspace_bytes < algo_workspace_bytes) {
    return RunStatus::failure(fmt::format("needs {} bytes of workspace, was given {}",
                                          algo_workspace_bytes, ops.workspace_bytes));
  }
  struct Aligned {
    const char* name;
    const void* pointer;
    std::uint32_t need;
  };
  for (const Aligned& x : {Aligned{"A", ops.a, need.a}, Aligned{"B", ops.b, need.b},
                           Aligned{"C", ops.c, need.c}, Aligned{"D", ops.c, need.d}}) {
    if (alignment_of(x.pointer) < x.need) {
      return RunStatus::refusal(
          fmt::format("operand {} at {} is not aligned to the {} bytes this "
                      "algorithm needs",
                      x.name, x.pointer, x.need));
    }
  }
  // cuBLASLt has no capability attribute for the bias pointer's alignment, and does not check it
  // alone: on an H200 a bf16 bias aligned to 2 bytes only (a slice such as bias[1:]) made an
  // algorithm fault with cudaErrorMisalignedAddress, a sticky error that ends the process's use of
  // the device, where at 4 and 8 bytes every algorithm ran right or refused with a status
  // (tests/gpu/gpu_solutions_test.cpp, AMisalignedBiasIsComputedOrRefusedNeverWrong).
  if (types_.bias && alignment_of(ops.bias) < kMinBiasAlignment) {
    return RunStatus::refusal(
        fmt::format("bias at {} is not aligned to the {} bytes cuBLASLt's bias epilogue needs "
                    "(a less aligned one can fault the device)",
                    ops.bias, kMinBiasAlignment));
  }
  if (problem_.op == OpKind::ScaledGemm && ops.beta != 0.0 && types_.c != types_.d) {
    return RunStatus::failure("a ScaledGemm with fp8 output takes beta = 0 only");
  }
  const ScopedDevice device(device_of(stream));
  // Only the kinds that write pointers into the descriptor pay for the lock.
  const bool sets_pointers = types_.bias || problem_.op == OpKind::ScaledGemm;
  std::unique_lock<std::mutex> lock(*descriptor_pointers_, std::defer_lock);
  if (sets_pointers) lock.lock();
  if (types_.bias) desc_.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, ops.bias);
  if (problem_.op == OpKind::ScaledGemm) {
    desc_.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(ops.scale_a));
    desc_.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(ops.scale_b));
  }
  const Scalars s = make_scalars(types_.scale, ops.alpha, ops.beta);
  // With an fp8 output C has another type than D and is not read (beta = 0): it must not alias
  // D, so it is passed as null, as PyTorch does.
  const void* c = types_.c == types_.d ? ops.c : nullptr;
  const cudaError_t pending = cudaPeekAtLastError();
  const cublasStatus_t status = cublasLtMatmul(
      cublaslt_handle(), desc_.get(), s.alpha, ops.a, a_.get(), ops.b, b_.get(), s.beta, c,
      c_.get(), ops.c, d_.get(), &algo, ops.workspace, ops.workspace_bytes, stream);
  if (status != CUBLAS_STATUS_SUCCESS) {
    // NOT_SUPPORTED is cuBLASLt turning these operands down before it launches anything (fp8
    // scales at 4 or 8 bytes, measured on an H100).
    std::string message = call_failed_message("cublasLtMatmul", status);
    return status == CUBLAS_STATUS_NOT_SUPPORTED ? RunStatus::refusal(std::move(message))
                                                 : RunStatus::failure(std::move(message));
  }
  const cudaError_t launch = launch_error_since(pending);
  if (launch != cudaSuccess)
    return RunStatus::failure(call_failed_message("kernel launch", launch));
  return RunStatus::success();
}

}  // namespace gemmtune::cuda
