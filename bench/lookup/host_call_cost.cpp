// Host cost of the calls a CUDA solution's run() makes besides its launch: the four capability
// queries of a cuBLASLt algorithm's operand alignments (which LtSolution now reads once, at
// construction), the CUDA runtime calls every run still makes (the stream's device and capture
// state, the current device, the pending error), and the tensor-map encoding that gemmtune's
// TMA kernels do twice per call (A and B: their pointers change from call to call). Each is
// timed over a million calls, 7 times; the median is printed in ns per call.
//
//   gemmtune_host_call_cost        (needs a GPU: the heuristic proposes the algorithm queried)
#include <cublasLt.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

template <typename F>
double median_ns_per_call(F&& call) {
  constexpr int kCalls = 1000000;
  std::vector<double> reps;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    reps.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCalls);
  }
  std::sort(reps.begin(), reps.end());
  return reps[reps.size() / 2];
}

bool ok(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "%s failed: %d\n", call, static_cast<int>(status));
  return false;
}

}  // namespace

int main() {
  // The lookup bench's problem: bf16 TN 256 x 256 x 256, fp32 compute, 32 MiB workspace.
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  const cublasOperation_t transa = CUBLAS_OP_T;
  const std::size_t workspace = 32u << 20;
  cublasLtMatmulHeuristicResult_t proposed{};
  int returned = 0;
  if (!ok(cublasLtCreate(&handle), "cublasLtCreate") ||
      !ok(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate") ||
      !ok(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa),
          "cublasLtMatmulDescSetAttribute") ||
      !ok(cublasLtMatrixLayoutCreate(&layout, CUDA_R_16BF, 256, 256, 256),
          "cublasLtMatrixLayoutCreate") ||
      !ok(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate") ||
      !ok(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                               &workspace, sizeof workspace),
          "cublasLtMatmulPreferenceSetAttribute") ||
      !ok(cublasLtMatmulAlgoGetHeuristic(handle, desc, layout, layout, layout, layout, preference,
                                         1, &proposed, &returned),
          "cublasLtMatmulAlgoGetHeuristic")) {
    return 1;
  }
  if (returned == 0) {
    std::fprintf(stderr, "cublasLtMatmulAlgoGetHeuristic proposed no algorithm\n");
    return 1;
  }
  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) {
    std::fprintf(stderr, "cudaStreamCreate failed\n");
    return 1;
  }

  volatile std::uint64_t sink = 0;  // keeps the calls' results alive
  const cublasLtMatmulAlgoCapAttributes_t alignments[] = {
      CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES};
  const double four_caps = median_ns_per_call([&] {
    for (const auto attribute : alignments) {
      std::uint32_t bytes = 0;
      std::size_t written = 0;
      cublasLtMatmulAlgoCapGetAttribute(&proposed.algo, attribute, &bytes, sizeof bytes, &written);
      sink = sink + bytes;
    }
  });
  const double capturing = median_ns_per_call([&] {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(stream, &status);
    sink = sink + status;
  });
  const double stream_device = median_ns_per_call([&] {
    int device = 0;
    cudaStreamGetDevice(stream, &device);
    sink = sink + device;
  });
  const double current_device = median_ns_per_call([&] {
    int device = 0;
    cudaGetDevice(&device);
    sink = sink + device;
  });
  const double peek = median_ns_per_call([&] { sink = sink + cudaPeekAtLastError(); });

  // A map as the TMA kernels make for A of a 4096 x 4096 bf16 weight: 64-k boxes of 128 rows,
  // 128-byte swizzle, a batch dimension of one.
  void* encode_entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &encode_entry, 12000,
                                       cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found in the driver\n");
    return 1;
  }
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(encode_entry);
  void* weights = nullptr;
  if (cudaMalloc(&weights, std::size_t{4096} * 4096 * 2) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  const cuuint64_t dims[3] = {4096, 4096, 1};
  const cuuint64_t strides[2] = {4096 * 2, std::uint64_t{4096} * 4096 * 2};
  const cuuint32_t box[3] = {64, 128, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const double tensor_map = median_ns_per_call([&] {
    CUtensorMap map;
    sink = sink + encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, weights, dims, strides, box,
                         element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  });
  cudaFree(weights);
  std::printf("4 x cublasLtMatmulAlgoCapGetAttribute (alignment of A, B, C, D): %.1f ns\n",
              four_caps);
  std::printf(
      "cudaStreamIsCapturing %.1f ns, cudaStreamGetDevice %.1f ns, cudaGetDevice %.1f ns, "
      "cudaPeekAtLastError %.1f ns\n",
      capturing, stream_device, current_device, peek);
  std::printf("cuTensorMapEncodeTiled (bf16, 3 dimensions, 128-byte swizzle): %.1f ns\n",
              tensor_map);
  cudaStreamDestroy(stream);
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(handle);
  return 0;
}
