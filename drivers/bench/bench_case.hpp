// BenchCase: one GEMM of a micro_perf workload, and how it becomes the Problem gemmtune measures.
//
// Layout. micro_perf's gemm is torch.matmul(a, b, out=c) on contiguous row-major tensors,
// a [M, K], b [K, N], c [M, N]. A row-major matrix is the column-major storage of its transpose,
// so the same bytes are the column-major BLAS call Cᵀ (N×M) = Bᵀ (N×K) · Aᵀ (K×M) without any
// transpose flag: "nn" with m=N, n=M, k=K, lda=N, ldb=K, ldc=N. That is exactly how PyTorch
// records such a matmul (GPT-2's Conv1D, x[128, 768] · W[768, 2304], is recorded as
// GemmAndBiasTunableOp_Half_NN,nn_2304_128_768_ld_2304_768_2304 in tests/fixtures), so a
// results file tuned from a PyTorch recording serves the bench and the other way round.
// Float8 types run as ScaledGemm in the "tn" layout (m=N, n=M, k=K, lda=ldb=K, ldc=N) with unit
// scales, because cuBLASLt's float8 kernels take only that layout (torch._scaled_mm's rule,
// and gemmtune mamf's).
//
// Dtype names. micro_perf's names and gemmtune's: "float32"/"float", "tfloat32"/"tf32"
// (float32 storage, TF32 arithmetic), "float16"/"half", "bfloat16", "float8" (micro_perf's
// float8_e4m3fn), "float8_e4m3fn", "float8_e5m2", and gemmtune's aliases (bf16, fp16, fp32, ...).
// micro_perf's integer types (int8, int4, int16, int32) are known but have no GEMM in gemmtune:
// such a case is kept, marked with the reason, and reported as skipped rather than refused, so
// that micro_perf's own workloads (which list int8) still run. Any other name is an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tuner/dtype.hpp"
#include "tuner/problem.hpp"

namespace gemmtune::bench {

struct BenchCase {
  std::string op = "gemm";
  std::int64_t m = 0, k = 0, n = 0;  // micro_perf's: a [M, K] · b [K, N]
  std::string dtype;                 // as the workload names it: "half", "tfloat32", ...
  std::optional<DType> gemm_dtype;   // none: skipped, `skip_reason` says why
  std::string skip_reason;
  int iterations = 100;              // timed iterations per solution
  std::string origin;                // where the file defines it: "cases[0]", "input_shape_list[3]"
  nlohmann::ordered_json arguments;  // the expanded case, as micro_perf would pass it to the op

  bool runnable() const { return gemm_dtype.has_value(); }
  std::string shape_text() const;  // "MxKxN", e.g. "128x4096x4096"
};

// What a workload's dtype name means to gemmtune.
struct DTypeName {
  std::optional<DType> dtype;      // set when gemmtune has a GEMM for it
  std::string unsupported_reason;  // set for known names without one (int8, ...)
};

// nullopt for a name that is neither micro_perf's nor gemmtune's.
std::optional<DTypeName> dtype_from_workload_name(std::string_view name);

// The names dtype_from_workload_name accepts, for error messages.
std::string known_dtype_names();

// The column-major Problem of a runnable case (see the layout above).
Problem problem_for_case(const BenchCase& c);

}  // namespace gemmtune::bench
