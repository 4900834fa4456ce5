// OpenBLAS on the CPU: sgemm (fp32, and tf32 which the CPU computes as fp32), dgemm, cgemm and
// zgemm through CBLAS; strided batched as a loop of calls; GemmAndBias as a GEMM followed by the
// bias add. bf16 runs through cblas_sbgemm where the linked OpenBLAS exports it (float output
// into the workspace, then rounded to bf16); otherwise, and for fp16 and fp8, it declares itself
// unsupported with the reason.
//
// Name: "Cpu_OpenBLAS".
#pragma once

#include <memory>
#include <string_view>

#include "tuner/solution.hpp"

namespace gemmtune::cpu {

inline constexpr std::string_view kOpenBlasSolutionName = "Cpu_OpenBLAS";

std::unique_ptr<Solution> make_openblas_solution();

}  // namespace gemmtune::cpu
