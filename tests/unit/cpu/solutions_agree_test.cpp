// The blocked kernels and OpenBLAS agree with Default under the engine's own numerical check,
// across dtypes, transposes, padded leading dimensions, batches and bias; unsupported cases say
// why.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"
#include "solutions/cpu/blocked_solution.hpp"
#include "solutions/cpu/default_solution.hpp"
#include "solutions/cpu/openblas.hpp"
#include "solutions/cpu/openblas_solution.hpp"
#include "tuner/numerical_check.hpp"

namespace gemmtune::cpu {
namespace {

using testing::describe;
using testing::make_problem;
using testing::run_once;

void expect_agrees(Solution& candidate, const Problem& p, double alpha = 1.0, double beta = 0.0) {
  SCOPED_TRACE(
      fmt::format("{} on {} alpha={} beta={}", candidate.name(), describe(p), alpha, beta));
  const Support support = candidate.supports(p);
  ASSERT_TRUE(support) << support.reason;
  CpuBackend backend;
  auto reference = make_default_solution();
  const auto expected = run_once(backend, *reference, p, alpha, beta);
  const auto actual = run_once(backend, candidate, p, alpha, beta);
  ASSERT_TRUE(actual.status) << actual.status.error;
  const CheckResult r = compare_outputs(p, expected.c, actual.c, tolerance_for(p, {}, expected.c));
  EXPECT_TRUE(r.passed) << r.describe(p.m * p.n * p.batch);
}

// Odd sizes that cross every tile edge of the smallest tile (32×128×128) and the micro-tiles.
constexpr std::int64_t M = 37, N = 23, K = 141;

TEST(BlockedSolution, AgreesWithDefault) {
  for (const BlockedTile& tile : {BlockedTile{32, 128, 128}, BlockedTile{64, 256, 256}}) {
    auto s = make_blocked_solution(tile);
    for (DType t : {DType::Float32, DType::TF32, DType::Float64, DType::Float16, DType::BFloat16}) {
      for (Transpose ta : {Transpose::N, Transpose::T}) {
        for (Transpose tb : {Transpose::N, Transpose::T}) {
          expect_agrees(*s, make_problem(OpKind::Gemm, t, ta, tb, M, N, K));
        }
      }
      expect_agrees(*s, make_problem(OpKind::Gemm, t, Transpose::T, Transpose::N, M, N, K, 3));
      expect_agrees(*s, make_problem(OpKind::GemmStridedBatched, t, Transpose::N, Transpose::T, 9,
                                     17, 33, 2, 3));
      expect_agrees(*s,
                    make_problem(OpKind::GemmAndBias, t, Transpose::N, Transpose::N, M, N, K, 1));
    }
    expect_agrees(
        *s, make_problem(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, M, N, K, 1), 0.5,
        0.25);
  }
}

// A Context runs one solution object for a problem from every thread that meets it: two threads
// in one blocked solution at once must each get their own product (they once shared its
// packing buffers, and 420 of 600 results were wrong).
TEST(BlockedSolution, ConcurrentRunsOfOneObjectEachGetTheirOwnProduct) {
  auto s = make_blocked_solution({32, 128, 128});
  const Problem p =
      make_problem(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 96, 96, 300);
  CpuBackend backend;
  auto reference = make_default_solution();
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<OperandSets>> sets;
  std::vector<std::vector<double>> expected;
  for (int t = 0; t < kThreads; ++t) {
    RotationPlan plan;
    plan.copies = 1;
    sets.push_back(std::make_unique<OperandSets>(backend, p, plan, 0, 100 + t, 1.0, 0.0));
    sets.back()->reset_check_output();
    ASSERT_TRUE(reference->run(p, sets.back()->check_operands(), nullptr));
    expected.push_back(sets.back()->read_check_output());
  }
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        sets[t]->reset_check_output();
        if (!s->run(p, sets[t]->check_operands(), nullptr)) ++wrong[t];
        const CheckResult r = compare_outputs(p, expected[t], sets[t]->read_check_output(),
                                              tolerance_for(p, {}, expected[t]));
        if (!r.passed) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// alpha = 0 reads no product, as BLAS defines it: a NaN in A does not reach C.
TEST(CpuSolutions, AlphaZeroLeavesBetaTimesC) {
  const Problem p = make_problem(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 4, 3, 5);
  std::vector<float> a(20, std::numeric_limits<float>::quiet_NaN()), b(15, 1.f), c(12, 2.f);
  auto blocked = make_blocked_solution({32, 128, 128});
  auto fallback = make_default_solution();
  auto openblas = make_openblas_solution();  // OpenBLAS's own alpha = 0 path
  for (Solution* s : {blocked.get(), fallback.get(), openblas.get()}) {
    std::vector<float> out = c;
    Operands o;
    o.a = a.data();
    o.b = b.data();
    o.c = out.data();
    o.alpha = 0.0;
    o.beta = 0.5;
    ASSERT_TRUE(s->run(p, o, nullptr));
    for (float v : out) EXPECT_EQ(v, 1.f) << s->name();
  }
}

TEST(BlockedSolution, DeclinesWhatItCannotRun) {
  auto s = make_blocked_solution({64, 256, 256});
  Problem fp8 =
      make_problem(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N, 16, 16, 16);
  fp8.c_type = DType::BFloat16;
  EXPECT_FALSE(s->supports(fp8));
  EXPECT_FALSE(s->supports(
      make_problem(OpKind::Gemm, DType::ComplexFloat32, Transpose::N, Transpose::N, 4, 4, 4)));
  EXPECT_FALSE(s->supports(make_problem(OpKind::Gemm, DType::ComplexFloat32, Transpose::N,
                                        Transpose::N, 4, 4, 4))
                   .reason.empty());
}

TEST(BlockedSolution, NamesRoundTrip) {
  for (const BlockedTile& tile : blocked_tiles()) {
    const std::string name = blocked_solution_name(tile);
    ASSERT_EQ(parse_blocked_solution_name(name), tile) << name;
    EXPECT_EQ(make_blocked_solution(tile)->name(), name);
  }
  EXPECT_EQ(blocked_solution_name({64, 256, 512}), "Cpu_Blocked_mc_64_kc_256_nc_512");
  EXPECT_FALSE(parse_blocked_solution_name("Cpu_Blocked_mc_64_kc_256"));
  EXPECT_FALSE(parse_blocked_solution_name("Cpu_Blocked_mc_64_kc_256_nc_512x"));
  EXPECT_FALSE(parse_blocked_solution_name("Cpu_Blocked_mc_0_kc_256_nc_512"));
  EXPECT_FALSE(parse_blocked_solution_name("Default"));
}

TEST(OpenBlasSolution, AgreesWithDefault) {
  auto s = make_openblas_solution();
  for (DType t : {DType::Float32, DType::TF32, DType::Float64, DType::ComplexFloat32,
                  DType::ComplexFloat64}) {
    std::vector<Transpose> ts{Transpose::N, Transpose::T};
    if (info(t).is_complex) ts.push_back(Transpose::C);
    for (Transpose ta : ts) {
      for (Transpose tb : ts) expect_agrees(*s, make_problem(OpKind::Gemm, t, ta, tb, M, N, K));
    }
    expect_agrees(*s, make_problem(OpKind::Gemm, t, Transpose::T, Transpose::N, M, N, K, 3));
    expect_agrees(*s, make_problem(OpKind::GemmStridedBatched, t, Transpose::T, Transpose::N, 9, 17,
                                   33, 2, 3));
    expect_agrees(*s, make_problem(OpKind::GemmAndBias, t, Transpose::N, Transpose::N, M, N, K, 1));
  }
  expect_agrees(
      *s, make_problem(OpKind::GemmAndBias, DType::Float32, Transpose::N, Transpose::N, M, N, K),
      0.5, 0.25);
}

TEST(OpenBlasSolution, UnsupportedTypesSayWhy) {
  auto s = make_openblas_solution();
  const Support fp16 =
      s->supports(make_problem(OpKind::Gemm, DType::Float16, Transpose::N, Transpose::N, 8, 8, 8));
  EXPECT_FALSE(fp16);
  EXPECT_NE(fp16.reason.find("fp16"), std::string::npos);
  const Problem bf16 =
      make_problem(OpKind::Gemm, DType::BFloat16, Transpose::N, Transpose::N, M, N, K);
  if (openblas_has_sbgemm()) {
    expect_agrees(*s, bf16);
  } else {
    const Support no = s->supports(bf16);
    EXPECT_FALSE(no);
    EXPECT_NE(no.reason.find("cblas_sbgemm"), std::string::npos) << no.reason;
  }
}

}  // namespace
}  // namespace gemmtune::cpu
