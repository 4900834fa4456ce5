// Operands less aligned than a tuned algorithm needs: an application's views (PyTorch's
// `bias[1:]`, a slice of A) rather than the allocations tuning measured on. cuBLASLt's algorithms
// turn them down (RunStatus::refused); GemmAndBias's `Default` still runs them (the GEMM through
// cublasGemmEx, the bias added by gemmtune's kernel), so does ScaledGemm's (cuBLASLt on aligned
// copies of the operands; gemmtune's fp8 kernel where none can be made), and a Context whose
// results file names such an algorithm runs `Default` for those calls, saying so once, instead of
// failing the GEMM.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "context_options.hpp"
#include "device_test.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/scaled_gemm_fallback.hpp"

namespace gemmtune {
namespace {

using gpu_test::DeviceOperands;

struct Shift {
  const char* what;  // "bias", "A", "B" or "scales"
  std::size_t offset;
};

class MisalignedOperands : public gpu_test::DeviceTest {
 protected:
  // Runs Default, which must compute the right C, and every cuBLASLt candidate, which must
  // compute it or refuse; prints how many of them ran.
  void check_default_and_candidates(const Problem& p, const Shift& shift) {
    SCOPED_TRACE(fmt::format("{},{} with {} at +{} bytes", p.op_signature(), p.params_signature(),
                             shift.what, shift.offset));
    DeviceOperands ops(*backend_, p, 1.0, 0.0);
    Operands o = ops.operands();
    gpu_test::ShiftedStorage storage;
    gpu_test::shift_operand(ops, o, shift.what, shift.offset, storage);

    ops.reset_c();
    const RunStatus def = cuda::make_default_solution(p)->run(p, o, backend_->stream());
    ASSERT_TRUE(def.ok) << "Default: " << def.error;
    const gpu_test::Comparison cmp = gpu_test::compare_with_reference(ops, ops.read_c());
    EXPECT_TRUE(cmp.ok) << "Default: " << cmp.detail;

    ran_ = refused_ = 0;
    for (auto& candidate : cuda::CublasLtProvider().enumerate(p, SearchOptions{})) {
      ops.reset_c();
      const RunStatus status = candidate->run(p, o, backend_->stream());
      backend_->synchronize();
      if (!status.ok) {
        EXPECT_TRUE(status.refused) << candidate->name() << ": " << status.error;
        ++refused_;
        continue;
      }
      ++ran_;
      const gpu_test::Comparison c = gpu_test::compare_with_reference(ops, ops.read_c());
      EXPECT_TRUE(c.ok) << candidate->name() << ": " << c.detail;
    }
    fmt::print("{} {} at +{}: Default ran; {} cuBLASLt candidates ran, {} refused\n",
               p.op_signature(), shift.what, shift.offset, ran_, refused_);
  }

  int ran_ = 0, refused_ = 0;
};

// Default runs and agrees on every shift; cuBLASLt's candidates either run and agree or refuse
// with the refusal flag (never a plain failure, which an application could not route round).
TEST_F(MisalignedOperands, GemmAndBiasDefaultRunsWhatItsAlgorithmRefuses) {
  for (const DType d : {DType::BFloat16, DType::Float16, DType::Float32}) {
    const std::size_t element = d == DType::Float32 ? 4 : 2;
    const Problem p =
        Problem::make(OpKind::GemmAndBias, d, Transpose::T, Transpose::N, 264, 64, 128);
    for (const Shift& shift : {Shift{"bias", element}, Shift{"A", element}, Shift{"B", element}}) {
      check_default_and_candidates(p, shift);
      if (HasFatalFailure()) return;
      if (std::string(shift.what) == "bias" && shift.offset < 4) {
        EXPECT_EQ(ran_, 0) << "a cuBLASLt algorithm ran a bias under 4 bytes";
      }
    }
  }
}

// A matrix-vector GemmAndBias as PyTorch records it (n = 1, ldc = 1) whose algorithm refuses the
// bias: Default's GEMM then bias takes C's columns m apart, as cuBLAS does (the bias kernel had
// been given ldc = 1, refused it after the GEMM had written C, and the call failed).
TEST_F(MisalignedOperands, GemmAndBiasDefaultTakesLdcOneAtNOne) {
  Problem p =
      Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::T, Transpose::N, 264, 1, 128);
  p.ldc = 1;
  ASSERT_FALSE(p.invalid_reason()) << *p.invalid_reason();
  check_default_and_candidates(p, Shift{"bias", 2});
}

// fp8 operands one byte past a 16-byte boundary (a slice of an fp8 tensor) and scales at 4 bytes:
// cuBLASLt turns such calls down, and fp8 has no cublasGemmEx; Default runs them through
// gemmtune's fp8 kernel, for every output type, row-wise scales and a bias.
TEST_F(MisalignedOperands, ScaledGemmDefaultRunsWhatItsAlgorithmRefuses) {
  using D = DType;
  struct Kind {
    D a, b, c;
    bool rowwise;
    std::optional<D> bias;
  };
  for (const Kind& kind :
       {Kind{D::Float8E4M3, D::Float8E4M3, D::BFloat16, false, std::nullopt},
        Kind{D::Float8E4M3, D::Float8E5M2, D::Float16, false, std::nullopt},
        Kind{D::Float8E5M2, D::Float8E4M3, D::Float32, true, std::nullopt},
        Kind{D::Float8E4M3, D::Float8E4M3, D::BFloat16, false, D::BFloat16},
        Kind{D::Float8E4M3, D::Float8E4M3, D::Float8E4M3, false, std::nullopt}}) {
    // Sizes cuBLASLt has fp8 algorithms for (multiples of 16), k not a multiple of the kernel's
    // 32-k chunks.
    Problem p = Problem::make(OpKind::ScaledGemm, kind.a, Transpose::T, Transpose::N, 144, 80, 208);
    p.b_type = kind.b;
    p.c_type = kind.c;
    p.rowwise = kind.rowwise;
    p.bias_type = kind.bias;
    for (const Shift& shift : {Shift{"A", 1}, Shift{"B", 1}, Shift{"scales", 4}}) {
      check_default_and_candidates(p, shift);
      if (HasFatalFailure()) return;
      // What Default's own algorithm (heuristic #0, one of them) did too: the kernel ran because
      // cuBLASLt turned the call down, not because it had no algorithm.
      EXPECT_GT(refused_, 0) << "no cuBLASLt candidate refused";
    }
  }
}

// C off 16 bytes (a slice of the output) for three output types, read (beta 0.5) or not, with
// ldc > m: Default runs cuBLASLt on an aligned copy of C and copies the result back column by
// column, leaving the bytes between the columns as they were.
TEST_F(MisalignedOperands, ScaledGemmDefaultWritesAMisalignedC) {
  struct Kind {
    DType c;
    std::size_t shift;
    double beta;
  };
  for (const Kind& kind : {Kind{DType::BFloat16, 2, 0.0}, Kind{DType::BFloat16, 2, 0.5},
                           Kind{DType::Float32, 4, 0.5}, Kind{DType::Float8E4M3, 1, 0.0}}) {
    Problem p = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N,
                              144, 80, 208);
    p.c_type = kind.c;
    p.ldc = 160;
    SCOPED_TRACE(fmt::format("{},{} C at +{} bytes, beta {}", p.op_signature(),
                             p.params_signature(), kind.shift, kind.beta));
    DeviceOperands ops(*backend_, p, 1.0, kind.beta);
    ops.reset_c();
    const std::size_t bytes = ops.c->bytes();
    std::vector<unsigned char> before(bytes), after(bytes);
    ASSERT_EQ(cudaMemcpy(before.data(), ops.c->data(), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    std::unique_ptr<Buffer> storage;
    char* c = gpu_test::shifted_copy(*backend_, ops.c->data(), bytes, kind.shift, storage);
    Operands o = ops.operands();
    o.c = c;
    const RunStatus def = cuda::make_default_solution(p)->run(p, o, backend_->stream());
    ASSERT_TRUE(def.ok) << def.error;
    backend_->synchronize();
    ASSERT_EQ(cudaMemcpy(ops.c->data(), c, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    const gpu_test::Comparison cmp = gpu_test::compare_with_reference(ops, ops.read_c());
    EXPECT_TRUE(cmp.ok) << cmp.detail;
    ASSERT_EQ(cudaMemcpy(after.data(), c, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    const std::size_t element = info(p.c_type).bytes;
    std::size_t gap_bytes_changed = 0;
    for (std::size_t at = 0; at < bytes; ++at) {
      const bool in_matrix =
          (at / element) % static_cast<std::size_t>(p.ldc) < static_cast<std::size_t>(p.m);
      if (!in_matrix && after[at] != before[at]) ++gap_bytes_changed;
    }
    EXPECT_EQ(gap_bytes_changed, 0u) << "bytes between C's columns were written";
  }
}

// The fallback kernel on its own, where Default would not take it: m, n and k off its tiles and
// chunks (cuBLASLt has no fp8 algorithm for these sizes, so Default stays unsupported, as for
// PyTorch), row-wise scales with a bias, beta read from C, and alpha = 0 with a NaN in A.
TEST_F(MisalignedOperands, TheFp8KernelComputesPartialTilesBiasAndBeta) {
  Problem p = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N, 136,
                            72, 200);
  p.c_type = DType::Float32;
  p.rowwise = true;
  p.bias_type = DType::BFloat16;
  EXPECT_FALSE(cuda::make_default_solution(p)->supports(p))
      << "Default runs the slow kernel where cuBLASLt has no algorithm";
  const auto kernel = cuda::make_scaled_gemm_fallback(p);
  ASSERT_TRUE(kernel->supports(p)) << kernel->supports(p).reason;
  for (const double beta : {0.0, 0.5}) {
    SCOPED_TRACE(fmt::format("beta {}", beta));
    DeviceOperands ops(*backend_, p, 1.5, beta);
    EXPECT_EQ(gpu_test::run_and_check(*kernel, ops), "");
  }
  Problem bf16_out = p;
  bf16_out.c_type = DType::BFloat16;
  bf16_out.rowwise = false;
  bf16_out.bias_type.reset();
  const auto plain = cuda::make_scaled_gemm_fallback(bf16_out);
  DeviceOperands ops(*backend_, bf16_out, 0.0, 0.5);
  const unsigned char nan = 0x7f;  // e4m3 has no Inf; this is its NaN
  ASSERT_EQ(cudaMemcpy(ops.a->data(), &nan, 1, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(gpu_test::run_and_check(*plain, ops), "") << "a NaN in A reached C at alpha = 0";
}

// A results file names a cuBLASLt algorithm for a bf16 GemmAndBias; the application's bias is a
// slice at 2 bytes. Both calls compute the right C through Default, and one message says why.
TEST_F(MisalignedOperands, AContextRunsDefaultWhereTheTunedAlgorithmRefuses) {
  const Problem p =
      Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::T, Transpose::N, 264, 64, 128);
  const auto candidates = cuda::CublasLtProvider().enumerate(p, SearchOptions{});
  ASSERT_FALSE(candidates.empty());
  const std::string tuned = candidates.front()->name();

  const auto dir = std::filesystem::temp_directory_path() / "gemmtune_gpu_misaligned";
  std::mutex log_mutex;
  std::string logs;
  const Options options = gpu_test::context_options_in(dir, log_mutex, logs);
  {
    std::ofstream out(options.filename);
    for (const auto& [key, value] : Context(options).validators()) {
      out << "Validator," << key << ',' << value << '\n';
    }
    out << p.op_signature() << ',' << p.params_signature() << ',' << tuned << ",0.01\n";
  }
  Context ctx(options);
  ASSERT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  ASSERT_EQ(ctx.lookup(p).solution, tuned);

  DeviceOperands ops(*backend_, p, 1.0, 0.0);
  ops.reset_c();
  RunStatus status = ctx.gemm(p, ops.operands(), backend_->stream());
  ASSERT_TRUE(status.ok) << status.error;
  EXPECT_TRUE(gpu_test::compare_with_reference(ops, ops.read_c()).ok);
  EXPECT_EQ(logs, "") << "aligned operands ran the tuned algorithm without a word";

  Operands o = ops.operands();
  gpu_test::ShiftedStorage storage;
  gpu_test::shift_operand(ops, o, "bias", 2, storage);
  for (int call = 0; call < 2; ++call) {
    ops.reset_c();
    status = ctx.gemm(p, o, backend_->stream());
    ASSERT_TRUE(status.ok) << status.error;
    const gpu_test::Comparison cmp = gpu_test::compare_with_reference(ops, ops.read_c());
    EXPECT_TRUE(cmp.ok) << cmp.detail;
  }
  EXPECT_NE(logs.find(tuned + " turned down this call's operands (bias at"), std::string::npos)
      << logs;
  EXPECT_EQ(logs.find('\n'), logs.size() - 1) << "said more than once:\n" << logs;
  EXPECT_EQ(ctx.lookup(p).solution, tuned) << "the entry itself is kept";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gemmtune
