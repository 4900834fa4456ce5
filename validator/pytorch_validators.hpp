// Writing results for PyTorch TunableOp, which loads a file only if its set of validator keys
// equals its own exactly and every value matches; otherwise it silently drops the whole file.
// So a file for PyTorch carries exactly the validators of a reference (a results file PyTorch
// wrote, or KEY=VALUE pairs the user gives) and only solution names PyTorch understands.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/environment.hpp"

namespace gemmtune {

// Parses "KEY=VALUE" options; throws InputError naming the bad option.
Environment environment_from_assignments(const std::vector<std::string>& assignments);

// Why the PyTorch whose results file carries `validators` cannot run `solution` from a results
// file it loads, or nullopt where it can. It can run `Default` always; hipBLASLt and rocBLAS names
// on ROCm (validators ROCM_VERSION, HIPBLASLT_VERSION or GCN_ARCH_NAME); cuBLASLt names on CUDA
// from PyTorch 2.14 (PT_VERSION), the first release whose TunableOp runs cuBLASLt algorithms on
// CUDA. Where it cannot, loading the file is not harmless: PyTorch 2.11.0 on CUDA stopped at the
// first GEMM whose entry named a cuBLASLt algorithm ("Expected iter != ops_.end()",
// tests/gpu/pytorch_roundtrip.sh).
std::optional<std::string> why_pytorch_cannot_run(std::string_view solution,
                                                  const Environment& validators);

// Throws InputError where the validators have no PT_VERSION: PyTorch loads no file without it.
void require_pytorch_version(const Environment& validators);

// Why PyTorch would read a validator's value other than as written (empty, or holding a comma);
// nullopt where it reads it as written.
std::optional<std::string> why_pytorch_reads_otherwise(std::string_view value);

}  // namespace gemmtune
