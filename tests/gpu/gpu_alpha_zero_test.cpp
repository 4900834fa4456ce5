// gemmtune's own CUDA kernels read no product under alpha = 0, as in BLAS: a caller need not set A
// and B then, so NaN in them must not reach C, which becomes beta·C. Every skinny configuration
// runs with A and B filled with NaN, and C must come out as beta·C exactly (beta = 0.5 scales
// without rounding). cuBLAS and cuBLASLt do not: on an H100 with cuBLAS 13.1, Default and every
// heuristic algorithm put NaN into C here (docs/api.md).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "device_test.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune {
namespace {

using gpu_test::DeviceOperands;

class AlphaZero : public gpu_test::DeviceTest {
 protected:
  // Runs `solution` with alpha = 0 and beta = 0.5 on A and B full of NaN; returns "" where every
  // element of C is beta times its initial value, else the first element that is not.
  std::string run_without_product(Solution& solution, DeviceOperands& ops) {
    ops.reset_c();
    backend_->synchronize();
    const RunStatus status = solution.run(ops.problem, ops.operands(), backend_->stream());
    if (!status) return "did not run: " + status.error;
    backend_->synchronize();
    const std::vector<gpu_test::Complex> c = ops.read_c();
    for (std::size_t i = 0; i < c.size(); ++i) {
      const gpu_test::Complex expected = ops.beta * ops.host_c0[i];
      if (!(std::abs(c[i] - expected) <= 1e-6 * std::abs(expected))) {
        return fmt::format("C[{}] = {} where beta·C = {}", i, c[i].real(), expected.real());
      }
    }
    return "";
  }

  // DeviceOperands for `p` under alpha = 0, beta = 0.5, with A and B then filled with NaN.
  std::unique_ptr<DeviceOperands> nan_operands(const Problem& p) {
    auto ops = std::make_unique<DeviceOperands>(*backend_, p, 0.0, 0.5);
    backend_->fill_bytes(*ops->a, 0xff);  // NaN in every floating-point type
    backend_->fill_bytes(*ops->b, 0xff);
    return ops;
  }

  static std::vector<Problem> problems() {
    return {Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 2048, 8, 2048),
            Problem::make(OpKind::Gemm, DType::Float16, Transpose::T, Transpose::N, 1024, 64, 4096),
            Problem::make(OpKind::Gemm, DType::Float32, Transpose::T, Transpose::N, 512, 1, 1024)};
  }
};

TEST_F(AlphaZero, GemmtunesOwnKernelsReadNoProduct) {
  if (IsSkipped()) return;
  cuda::GemmtuneCudaProvider provider;
  for (const Problem& p : problems()) {
    SCOPED_TRACE(p.params_signature());
    auto ops = nan_operands(p);
    const auto solutions = provider.enumerate(p, SearchOptions{});
    ASSERT_FALSE(solutions.empty());
    for (const auto& s : solutions) EXPECT_EQ(run_without_product(*s, *ops), "") << s->name();
  }
}

}  // namespace
}  // namespace gemmtune
