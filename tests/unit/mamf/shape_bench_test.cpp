// The GEMM of a MAMF shape is torch.mm's (the "TN" BLAS call), and ShapeBench measures it with the
// requested iterations, flushing or rotating, on the CPU backend.
#include "drivers/mamf/shape_bench.hpp"

#include <gtest/gtest.h>

#include "drivers/solution_resolver.hpp"
#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/register_cpu.hpp"
#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

TEST(ShapeBench, TheProblemIsTorchMmsCall) {
  const Problem p = problem_for_shape({256, 4096, 1024}, DType::BFloat16);
  EXPECT_EQ(p.op_signature(), "GemmTunableOp_BFloat16_TN");
  // Column-major: m = N, n = M, k = K; A is Bᵀ (ld K), B is Aᵀ (ld K), C ld N.
  EXPECT_EQ(p.params_signature(), "tn_4096_256_1024_ld_1024_1024_4096");
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 256 * 4096 * 1024);
  const Problem f8 = problem_for_shape({64, 64, 64}, DType::Float8E4M3);
  EXPECT_EQ(f8.op, OpKind::ScaledGemm);
  EXPECT_EQ(f8.c_type, DType::Float8E4M3);
}

// Where no provider gives Default (an application's replaced the one that did), the warning said
// "using Default" of the very solution that could not run.
TEST(ResolveSolution, DefaultThatNoProviderGivesIsSaidAsSuch) {
  Registry empty;
  const Problem p = problem_for_shape({64, 48, 32}, DType::Float32);
  const ResolvedSolution d = resolve_solution(empty, "cpu", p, "Default", SearchOptions{});
  EXPECT_FALSE(d.solution);
  EXPECT_TRUE(d.fell_back);
  EXPECT_NE(d.warning.find("Default cannot run here (no cpu provider gives it"), std::string::npos)
      << d.warning;
  EXPECT_EQ(d.warning.find("using Default"), std::string::npos) << d.warning;
}

class ShapeBenchCpu : public ::testing::Test {
 protected:
  cpu::CpuBackend backend;
  Registry registry;
  std::unique_ptr<Buffer> flush;
  void SetUp() override {
    register_cpu_solutions(registry);
    flush = backend.allocate(4096);  // small: these tests check counts, not caches
  }
};

TEST_F(ShapeBenchCpu, MeasuresTheTimedIterationsAfterTheWarmup) {
  const Problem p = problem_for_shape({64, 48, 32}, DType::Float32);
  auto d = resolve_solution(registry, "cpu", p, "Default", SearchOptions{});
  ASSERT_TRUE(d.solution);
  BenchOptions o;
  o.warmup_iterations = 3;
  o.iterations = 7;
  ShapeBench bench(backend, p, o, 0, *flush);
  EXPECT_EQ(bench.rotation().copies, 1);  // one set; the flush happens between iterations
  const Measurement m = bench.measure(*d.solution);
  ASSERT_TRUE(m.status) << m.status.error;
  EXPECT_EQ(m.samples_ms.size(), 7u);
  EXPECT_GT(m.stats.min_ms, 0);
  const Measurement window = bench.run_for(*d.solution, 5.0);
  EXPECT_GE(window.samples_ms.size(), 1u);
}

TEST_F(ShapeBenchCpu, RotationInsteadOfFlush) {
  const Problem p = problem_for_shape({32, 32, 32}, DType::Float32);
  auto d = resolve_solution(registry, "cpu", p, "Default", SearchOptions{});
  BenchOptions o;
  o.rotate = true;
  o.iterations = 4;
  o.warmup_iterations = 0;
  ShapeBench bench(backend, p, o, 0, *flush);
  EXPECT_FALSE(bench.rotation().flush && bench.rotation().copies > 1);
  if (backend.properties().last_level_cache_bytes > 0) {
    EXPECT_GT(bench.rotation().copies, 1);
  }
  EXPECT_EQ(bench.measure(*d.solution).samples_ms.size(), 4u);
}

TEST_F(ShapeBenchCpu, AShapeTooLargeForMemoryIsAnInputError) {
  const Problem p = problem_for_shape({1 << 22, 1 << 22, 8}, DType::Float32);
  EXPECT_THROW({ ShapeBench too_large(backend, p, BenchOptions{}, 0, *flush); }, InputError);
}

}  // namespace
}  // namespace gemmtune::mamf
