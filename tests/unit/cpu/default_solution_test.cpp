// Default (the reference) against an independent naive GEMM written here, over every dtype,
// transpose, padded leading dimensions, strided batches, bias, scales, alpha and beta.
#include "solutions/cpu/default_solution.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "cpu_test_util.hpp"

namespace gemmtune::cpu {
namespace {

using testing::describe;
using testing::make_problem;

double ulp_of(DType t) {
  switch (t) {
    case DType::Float64:
    case DType::ComplexFloat64: return 0x1p-52;
    case DType::Float16: return 0x1p-10;
    case DType::BFloat16: return 0x1p-7;
    default: return 0x1p-23;
  }
}

// Computes the expected C from the operands in long double and compares element by element:
// Default rounds once, so it must be within one ulp of C's type (plus double accumulation).
void expect_matches_naive(const Problem& p, double alpha, double beta) {
  SCOPED_TRACE(fmt::format("{} alpha={} beta={}", describe(p), alpha, beta));
  CpuBackend backend;
  RotationPlan plan;
  OperandSets sets(backend, p, plan, 0, 3, alpha, beta);
  sets.reset_check_output();
  const Operands o = sets.check_operands();
  const std::vector<double> before = sets.read_check_output();
  auto solution = make_default_solution();
  ASSERT_TRUE(solution->supports(p)) << solution->supports(p).reason;
  ASSERT_TRUE(solution->run(p, o, nullptr));
  const std::vector<double> after = sets.read_check_output();
  const bool cx = info(p.c_type).is_complex;
  using C = std::complex<long double>;
  auto load = [](DType t, const void* base, std::int64_t i) {
    const auto v = load_complex(t, base, i);
    return C(v.real(), v.imag());
  };
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        C acc = 0;
        for (std::int64_t l = 0; l < p.k; ++l) {
          const std::int64_t ai = b * p.batch_stride_a() +
                                  (p.transa == Transpose::N ? i + l * p.lda : l + i * p.lda);
          const std::int64_t bi = b * p.batch_stride_b() +
                                  (p.transb == Transpose::N ? l + j * p.ldb : j + l * p.ldb);
          C av = load(p.a_type, o.a, ai), bv = load(p.b_type, o.b, bi);
          if (p.transa == Transpose::C) av = std::conj(av);
          if (p.transb == Transpose::C) bv = std::conj(bv);
          acc += av * bv;
        }
        C expected = static_cast<long double>(alpha) * acc;
        if (p.op == OpKind::ScaledGemm) {
          expected *= static_cast<long double>(o.scale_a[p.rowwise ? i : 0]) *
                      static_cast<long double>(o.scale_b[p.rowwise ? j : 0]);
        }
        const std::int64_t at = b * p.batch_stride_c() + i + j * p.ldc;
        const std::size_t re = static_cast<std::size_t>(cx ? 2 * at : at);
        if (beta != 0) {
          expected += static_cast<long double>(beta) *
                      C(before[re], cx ? before[re + 1] : 0.0);
        }
        if (p.has_bias()) expected += load(p.bias_type.value_or(p.c_type), o.bias, i);
        // One rounding to C's type, plus double accumulation (k terms of magnitude ≤ 1, which
        // only shows for fp64 outputs).
        const double tol = ulp_of(p.c_type) * static_cast<double>(std::abs(expected)) +
                           4.0 * static_cast<double>(p.k) * 0x1p-53;
        ASSERT_NEAR(after[re], static_cast<double>(expected.real()), tol) << "C[" << i << "," << j << "] batch " << b;
        if (cx) {
          ASSERT_NEAR(after[re + 1], static_cast<double>(expected.imag()), tol);
        }
      }
    }
  }
}

TEST(DefaultSolution, EveryDtypeAndTranspose) {
  for (DType t : {DType::Float32, DType::TF32, DType::Float64, DType::Float16, DType::BFloat16,
                  DType::ComplexFloat32, DType::ComplexFloat64}) {
    std::vector<Transpose> ts{Transpose::N, Transpose::T};
    if (info(t).is_complex) ts.push_back(Transpose::C);
    for (Transpose ta : ts) {
      for (Transpose tb : ts) {
        expect_matches_naive(make_problem(OpKind::Gemm, t, ta, tb, 5, 4, 7), 1.0, 0.0);
      }
    }
  }
}

TEST(DefaultSolution, LeadingDimensionsAboveTheMinimum) {
  for (DType t : {DType::Float32, DType::BFloat16}) {
    expect_matches_naive(make_problem(OpKind::Gemm, t, Transpose::T, Transpose::N, 6, 3, 9, 4), 1.0, 0.0);
    expect_matches_naive(make_problem(OpKind::Gemm, t, Transpose::N, Transpose::T, 6, 3, 9, 2), 1.0, 0.0);
  }
}

TEST(DefaultSolution, StridedBatched) {
  for (DType t : {DType::Float32, DType::Float16, DType::Float64}) {
    expect_matches_naive(
        make_problem(OpKind::GemmStridedBatched, t, Transpose::T, Transpose::N, 4, 5, 6, 1, 3), 1.0, 0.0);
  }
}

TEST(DefaultSolution, GemmAndBiasAddsToEveryColumn) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Float16}) {
    expect_matches_naive(make_problem(OpKind::GemmAndBias, t, Transpose::N, Transpose::N, 7, 3, 5, 1), 1.0, 0.0);
  }
}

TEST(DefaultSolution, AlphaAndBeta) {
  expect_matches_naive(make_problem(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::T, 5, 6, 4, 2), 0.75, 0.5);
  expect_matches_naive(make_problem(OpKind::GemmStridedBatched, DType::Float64, Transpose::T, Transpose::T, 3, 4, 5, 1, 2), -1.5, 2.0);
  expect_matches_naive(make_problem(OpKind::Gemm, DType::ComplexFloat64, Transpose::C, Transpose::N, 3, 4, 5), 0.5, 1.0);
}

TEST(DefaultSolution, ScaledGemmTensorwiseAndRowwise) {
  for (DType in : {DType::Float8E4M3, DType::Float8E5M2, DType::Float8E4M3Fnuz, DType::Float8E5M2Fnuz}) {
    for (bool rowwise : {false, true}) {
      Problem p = make_problem(OpKind::ScaledGemm, in, Transpose::T, Transpose::N, 6, 5, 32);
      p.c_type = DType::BFloat16;
      p.rowwise = rowwise;
      p.bias_type = DType::BFloat16;
      expect_matches_naive(p, 1.0, 0.0);
      p.c_type = DType::Float32;
      p.bias_type.reset();
      expect_matches_naive(p, 1.0, 0.0);
    }
  }
}

}  // namespace
}  // namespace gemmtune::cpu
