// Every solution of both CUDA providers agrees with a double-precision host reference, for every
// dtype, transpose and kind; Default runs every fixture line PyTorch recorded.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string_view>

#include "device_test.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune {
namespace {

using gpu_test::DeviceOperands;

constexpr std::array kTransposes{
    std::pair{Transpose::N, Transpose::N}, std::pair{Transpose::N, Transpose::T},
    std::pair{Transpose::T, Transpose::N}, std::pair{Transpose::T, Transpose::T}};

// Leading dimensions padded past the rows, so that ld and rows are told apart.
Problem padded(Problem p, std::int64_t pad) {
  p.lda = p.a_rows() + pad;
  p.ldb = p.b_rows() + pad;
  p.ldc = p.m + pad;
  return p;
}

struct Case {
  Problem problem;
  double alpha = 1.0;
  double beta = 0.0;
};

std::string describe(const Case& c) {
  return fmt::format("{},{} alpha={} beta={}", c.problem.op_signature(),
                     c.problem.params_signature(), c.alpha, c.beta);
}

std::vector<Case> real_cases() {
  std::vector<Case> cases;
  for (DType d : {DType::Float32, DType::TF32, DType::Float16, DType::BFloat16, DType::Float64}) {
    for (auto [ta, tb] : kTransposes) {
      cases.push_back({padded(Problem::make(OpKind::Gemm, d, ta, tb, 192, 80, 144), 8), 0.75, 0.5});
      cases.push_back({padded(Problem::make(OpKind::GemmAndBias, d, ta, tb, 128, 48, 96), 8)});
      Problem batched = padded(Problem::make(OpKind::GemmStridedBatched, d, ta, tb, 64, 40, 72), 8);
      batched.batch = 3;
      batched.stride_c = batched.ldc * batched.n + 64;  // gaps between the matrices of C
      cases.push_back({batched});
    }
  }
  // Odd shapes: unaligned sizes, a vector output with PyTorch's ldc = 1, k = 1 with ldb = 1.
  for (DType d : {DType::Float32, DType::Float16, DType::BFloat16}) {
    cases.push_back({Problem::make(OpKind::Gemm, d, Transpose::N, Transpose::N, 33, 7, 65)});
    Problem vec = Problem::make(OpKind::Gemm, d, Transpose::T, Transpose::N, 96, 1, 64);
    vec.ldc = 1;
    cases.push_back({vec});
  }
  Problem k1 = Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 128, 32, 1);
  k1.ldb = 1;
  cases.push_back({k1});
  return cases;
}

std::vector<Case> complex_cases() {
  std::vector<Case> cases;
  for (DType d : {DType::ComplexFloat32, DType::ComplexFloat64}) {
    cases.push_back({Problem::make(OpKind::Gemm, d, Transpose::N, Transpose::N, 64, 32, 48)});
    cases.push_back({Problem::make(OpKind::Gemm, d, Transpose::C, Transpose::T, 64, 32, 48)});
  }
  return cases;
}

std::vector<Case> fp8_cases() {
  auto scaled = [](DType a, DType b, DType c, bool rowwise, std::optional<DType> bias) {
    Problem p = Problem::make(OpKind::ScaledGemm, a, Transpose::T, Transpose::N, 128, 64, 256);
    p.b_type = b;
    p.c_type = c;
    p.rowwise = rowwise;
    p.bias_type = bias;
    return Case{p};
  };
  using D = DType;
  return {
      scaled(D::Float8E4M3, D::Float8E4M3, D::BFloat16, false, std::nullopt),
      scaled(D::Float8E4M3, D::Float8E4M3, D::Float16, false, std::nullopt),
      scaled(D::Float8E4M3, D::Float8E4M3, D::Float32, false, std::nullopt),
      scaled(D::Float8E4M3, D::Float8E5M2, D::BFloat16, false, std::nullopt),
      scaled(D::Float8E5M2, D::Float8E4M3, D::BFloat16, false, std::nullopt),
      scaled(D::Float8E4M3, D::Float8E4M3, D::Float8E4M3, false, std::nullopt),
      scaled(D::Float8E4M3, D::Float8E4M3, D::BFloat16, false, D::BFloat16),
      scaled(D::Float8E4M3, D::Float8E4M3, D::BFloat16, true, std::nullopt),
  };
}

class CudaSolutions : public gpu_test::DeviceTest {
 protected:
  // Runs Default and every cuBLASLt candidate; returns how many candidates ran.
  void check_all(const Case& c, bool lt_required = true) {
    SCOPED_TRACE(describe(c));
    DeviceOperands ops(*backend_, c.problem, c.alpha, c.beta);
    auto def = cuda::make_default_solution(c.problem);
    const Support s = def->supports(c.problem);
    ASSERT_TRUE(s) << "Default: " << s.reason;
    const std::string def_error = gpu_test::run_and_check(*def, ops);
    EXPECT_EQ(def_error, "") << "Default";

    cuda::CublasLtProvider provider;
    const auto start = std::chrono::steady_clock::now();
    auto candidates = provider.enumerate(c.problem, SearchOptions{});
    const double enumerate_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (lt_required) {
      EXPECT_FALSE(candidates.empty()) << "no cuBLASLt candidate";
    }
    int failed = 0;
    for (auto& solution : candidates) {
      ASSERT_TRUE(solution->supports(c.problem)) << solution->name();
      const std::string error = gpu_test::run_and_check(*solution, ops);
      if (!error.empty()) {
        ++failed;
        ADD_FAILURE() << solution->name() << ": " << error;
      }
    }
    fmt::print("{:<96} Default {}, {} cuBLASLt candidates ({:.1f} ms to enumerate), {} failed\n",
               describe(c), def_error.empty() ? "ok" : "FAILED", candidates.size(), enumerate_ms,
               failed);
    ++problems_;
  }

  char* shifted_copy(const void* source, std::size_t bytes, std::size_t offset,
                     std::unique_ptr<Buffer>& storage) {
    return gpu_test::shifted_copy(*backend_, source, bytes, offset, storage);
  }

  struct Outcome {
    int ran = 0, refused = 0;
    std::string first_refusal;  // "NAME: why"
  };
  // Runs Default and every cuBLASLt candidate on `ops` as `adjust` changes them: each either
  // computes the right C or fails with a status, and none faults the device (`what` names the
  // change in messages).
  void run_every_solution(DeviceOperands& ops, const std::function<void(Operands&)>& adjust,
                          std::string_view what, Outcome& out) {
    std::vector<std::unique_ptr<Solution>> solutions;
    solutions.push_back(cuda::make_default_solution(ops.problem));
    for (auto& c : cuda::CublasLtProvider().enumerate(ops.problem, SearchOptions{})) {
      solutions.push_back(std::move(c));
    }
    for (auto& solution : solutions) {
      ops.reset_c();
      backend_->synchronize();
      Operands o = ops.operands();
      adjust(o);
      const RunStatus status = solution->run(ops.problem, o, backend_->stream());
      ASSERT_NO_THROW(backend_->synchronize()) << solution->name() << " faulted";
      if (!status) {
        if (out.refused++ == 0) out.first_refusal = solution->name() + ": " + status.error;
        continue;
      }
      ++out.ran;
      const gpu_test::Comparison cmp = gpu_test::compare_with_reference(ops, ops.read_c());
      EXPECT_TRUE(cmp.ok) << solution->name() << ": wrong with " << what << ": " << cmp.detail;
    }
    EXPECT_FALSE(cuda_sticky_error());
  }

  int problems_ = 0;
};

TEST_F(CudaSolutions, RealTypesAllTransposesAndKinds) {
  for (const Case& c : real_cases()) check_all(c);
}

TEST_F(CudaSolutions, ComplexTypes) {
  for (const Case& c : complex_cases()) check_all(c, /*lt_required=*/false);
}

TEST_F(CudaSolutions, Fp8ScaledGemm) {
  for (const Case& c : fp8_cases()) check_all(c);
}

TEST_F(CudaSolutions, Fp8OtherThanTnIsUnsupportedWithAReason) {
  Problem p =
      Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::N, Transpose::N, 64, 64, 64);
  p.c_type = DType::BFloat16;
  const Support s = cuda::make_default_solution(p)->supports(p);
  EXPECT_FALSE(s);
  EXPECT_NE(s.reason.find("tn"), std::string::npos) << s.reason;
  EXPECT_TRUE(cuda::CublasLtProvider().enumerate(p, SearchOptions{}).empty());
}

// TF32 problems really compute in TF32: Default's results are further from the reference than an
// fp32 computation may be (at k = 64 the fp32 bound is about 70 fp32 roundings of the terms' sum,
// while TF32's 10-bit inputs alone are off by about 2^-11 of each product), so a TF32 problem that
// quietly ran in full fp32 would fail this while passing the TF32 tolerance. cuBLASLt's candidates
// for the TF32 compute type may be fp32 kernels too (CUBLAS_COMPUTE_32F_FAST_TF32 allows TF32, it
// does not impose it; on an H200 some were): each must pass TF32's tolerance, and most use TF32.
TEST_F(CudaSolutions, Tf32ComputesInTf32) {
  const Problem fp32 =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 512, 256, 64);
  Problem tf32 = fp32;
  tf32.a_type = tf32.b_type = tf32.c_type = DType::TF32;
  DeviceOperands as_fp32(*backend_, fp32, 1.0, 0.0);  // fp32 data under fp32's tolerance
  DeviceOperands as_tf32(*backend_, tf32, 1.0, 0.0);  // under TF32's tolerance
  const auto in_tf32 = [&](Solution& solution) {
    as_fp32.reset_c();
    EXPECT_TRUE(solution.run(tf32, as_fp32.operands(), backend_->stream()));
    const auto strict = gpu_test::compare_with_reference(as_fp32, as_fp32.read_c());
    fmt::print("{:<100} worst {:.3f} of fp32's bound\n", solution.name(), strict.worst_ratio);
    return !strict.ok;
  };
  auto def = cuda::make_default_solution(tf32);
  EXPECT_EQ(gpu_test::run_and_check(*def, as_tf32), "");
  EXPECT_TRUE(in_tf32(*def)) << "Default ran the TF32 problem within fp32's bound";
  auto candidates = cuda::CublasLtProvider().enumerate(tf32, SearchOptions{});
  ASSERT_FALSE(candidates.empty());
  std::size_t tf32_kernels = 0;
  for (auto& solution : candidates) {
    EXPECT_EQ(gpu_test::run_and_check(*solution, as_tf32), "") << solution->name();
    if (in_tf32(*solution)) ++tf32_kernels;
  }
  EXPECT_GT(2 * tf32_kernels, candidates.size())
      << tf32_kernels << " of " << candidates.size() << " candidates computed in TF32";
}

// An error the application left pending (here a failed cudaMalloc) is neither blamed on a GEMM
// run after it nor cleared by one: gemmtune's solutions check only for launch errors of their own.
// Each solution runs once first: a kernel's first launch loads it (and the TMA kernels set their
// shared-memory limit then), and the runtime's loading resets the pending error by itself, which is
// out of our hands; an application's GEMMs after the first are what this is about.
TEST_F(CudaSolutions, AnErrorTheApplicationLeftPendingIsNeitherBlamedNorCleared) {
  const Problem p =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 2048, 8, 1024);
  DeviceOperands ops(*backend_, p, 1.0, 0.0);
  std::vector<std::unique_ptr<Solution>> solutions;
  solutions.push_back(cuda::make_default_solution(p));
  solutions.push_back(std::move(cuda::CublasLtProvider().enumerate(p, SearchOptions{}).front()));
  for (auto& s : cuda::GemmtuneCudaProvider().enumerate(p, SearchOptions{})) {
    solutions.push_back(std::move(s));  // the CUDA-core, tensor-core and TMA kernels that fit
  }
  for (auto& solution : solutions) {
    SCOPED_TRACE(solution->name());
    ASSERT_EQ(gpu_test::run_and_check(*solution, ops), "");  // loaded and warm
    void* huge = nullptr;
    ASSERT_NE(cudaMalloc(&huge, std::size_t{1} << 62), cudaSuccess);
    ASSERT_EQ(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
    EXPECT_EQ(gpu_test::run_and_check(*solution, ops), "");
    EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation) << "the pending error was cleared";
  }
}

// A bias aligned to one element only (a slice of a larger tensor, as `bias[1:]` in PyTorch), to 4
// and to 8 bytes: every solution either computes the right C or fails with a status, and the
// device stays healthy; Default runs them all (gpu_misaligned_operands_test.cpp). cuBLASLt has no
// capability attribute for the bias pointer's alignment; without gemmtune's own check a 2-byte
// aligned bf16 bias made an algorithm fault with cudaErrorMisalignedAddress on an H200
// (2026-11-26), which no later CUDA call survives.
TEST_F(CudaSolutions, AMisalignedBiasIsComputedOrRefusedNeverWrong) {
  for (const auto& [d, offset] :
       {std::pair{DType::BFloat16, 2}, std::pair{DType::BFloat16, 4}, std::pair{DType::BFloat16, 8},
        std::pair{DType::Float16, 2}, std::pair{DType::Float32, 4}}) {
    const Problem p =
        Problem::make(OpKind::GemmAndBias, d, Transpose::T, Transpose::N, 264, 64, 128);
    SCOPED_TRACE(p.op_signature() + "," + p.params_signature());
    DeviceOperands ops(*backend_, p, 1.0, 0.0);
    std::unique_ptr<Buffer> storage;
    const char* bias = shifted_copy(ops.bias->data(), ops.bias->bytes(),
                                    static_cast<std::size_t>(offset), storage);
    Outcome out;
    run_every_solution(
        ops, [&](Operands& o) { o.bias = bias; }, "a misaligned bias", out);
    if (HasFatalFailure()) return;
    fmt::print(
        "bias aligned to {} bytes, {}: {} solutions ran (and agreed, or failed above), {} "
        "refused\n",
        offset, format_as(d), out.ran, out.refused);
    // Default only, through cublasGemmEx and its own bias kernel (gemm_then_bias.hpp).
    if (offset < 4) {
      EXPECT_EQ(out.ran, 1) << "a cuBLASLt algorithm ran a bias under 4 bytes";
    }
  }
}

// Scales of a ScaledGemm (fp32, one per tensor or one per row and column) at 4, 8 and 16 bytes
// past a 256-byte boundary, as slices of larger scale tensors would be: every solution either
// computes the right C or fails with a status, and the device stays healthy. Unlike the bias,
// cuBLASLt checks these itself: on an H100 (2026-11-26) every cuBLASLt algorithm refused scales at
// 4 and 8 bytes with CUBLAS_STATUS_NOT_SUPPORTED, and ran them at 16. Default runs them all, at 4
// and 8 bytes through gemmtune's fp8 kernel (default_with_fallback.hpp).
TEST_F(CudaSolutions, ShiftedScalesAreComputedOrRefusedNeverWrong) {
  for (const bool rowwise : {false, true}) {
    Problem p = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N,
                              128, 64, 256);
    p.c_type = DType::BFloat16;
    p.rowwise = rowwise;
    for (const std::size_t offset : {4, 8, 16}) {
      SCOPED_TRACE(
          fmt::format("{},{} scales at +{} bytes", p.op_signature(), p.params_signature(), offset));
      DeviceOperands ops(*backend_, p, 1.0, 0.0);
      std::unique_ptr<Buffer> storage_a, storage_b;
      const char* scale_a =
          shifted_copy(ops.scale_a->data(), ops.scale_a->bytes(), offset, storage_a);
      const char* scale_b =
          shifted_copy(ops.scale_b->data(), ops.scale_b->bytes(), offset, storage_b);
      Outcome out;
      run_every_solution(
          ops,
          [&](Operands& o) {
            o.scale_a = reinterpret_cast<const float*>(scale_a);
            o.scale_b = reinterpret_cast<const float*>(scale_b);
          },
          "shifted scales", out);
      if (HasFatalFailure()) return;
      fmt::print(
          "scales {} at +{} bytes: {} solutions ran (and agreed, or failed above), {} "
          "refused\n",
          rowwise ? "per row and column" : "per tensor", offset, out.ran, out.refused);
      if (out.refused > 0) fmt::print("  the first refusal: {}\n", out.first_refusal);
      EXPECT_GT(out.ran, 0) << "Default must run every call";
      if (offset % 16 == 0) {
        EXPECT_GT(out.ran, 1) << "16-byte aligned scales must run in cuBLASLt's algorithms too";
      }
    }
  }
}

// Default runs every line of the fixtures PyTorch recorded, and agrees with the reference.
TEST_F(CudaSolutions, DefaultRunsEveryFixtureLine) {
  int lines = 0;
  // The build's source path, unless the binaries were moved to another machine.
  const char* moved = std::getenv("GEMMTUNE_TEST_FIXTURES_DIR");
  const std::filesystem::path dir = moved != nullptr ? moved : GEMMTUNE_TEST_FIXTURES;
  for (const char* name : {"gpt2_fp16_untuned.csv", "gpt2_fp32_untuned.csv",
                           "gpt2_tf32_untuned.csv", "mistral_bf16_untuned.csv"}) {
    std::ifstream in(dir / name);
    ASSERT_TRUE(in) << (dir / name);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line.rfind("Validator,", 0) == 0) continue;
      const auto c1 = line.find(',');
      const auto c2 = line.find(',', c1 + 1);
      const Problem p = parse_problem(line.substr(0, c1), line.substr(c1 + 1, c2 - c1 - 1));
      SCOPED_TRACE(std::string(name) + ": " + line);
      auto def = cuda::make_default_solution(p);
      ASSERT_TRUE(def->supports(p)) << def->supports(p).reason;
      DeviceOperands ops(*backend_, p, 1.0, 0.0, static_cast<std::uint64_t>(lines) + 7);
      EXPECT_EQ(gpu_test::run_and_check(*def, ops), "");
      ++lines;
    }
  }
  fmt::print("Default ran and agreed on {} fixture lines\n", lines);
  EXPECT_GT(lines, 100);
}

}  // namespace
}  // namespace gemmtune
