// The real Tuner on the CPU backend with the CPU solutions: registration, names rebuilt through
// the registry, and winners for lines of a bundled fixture.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/register_cpu.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {
namespace {

TunerOptions quick_options() {
  TunerOptions o;
  o.timing.max_tuning_iterations = 10;
  o.timing.max_tuning_duration_ms = 20;
  o.timing.rotating_buffer_mb = 4.0;  // enough to rotate, small enough for a unit test
  return o;
}

TEST(CpuRegistry, EnumeratesAndRebuildsEveryName) {
  Registry registry;
  register_cpu_solutions(registry);
  const Problem p = Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  const auto solutions = registry.enumerate("cpu", p, {});
  ASSERT_GE(solutions.size(), 6u);  // Default, 4 blocked, OpenBLAS
  EXPECT_EQ(solutions.front()->name(), "Default");
  for (const auto& s : solutions) {
    auto rebuilt = registry.from_name("cpu", p, s->name());
    ASSERT_NE(rebuilt, nullptr) << s->name();
    EXPECT_EQ(rebuilt->name(), s->name());
  }
  EXPECT_EQ(registry.from_name("cpu", p, "Gemm_Cublaslt_id_1"), nullptr);
}

TEST(CpuTuner, FindsAWinnerForFixtureLines) {
  cpu::CpuBackend backend;
  Registry registry;
  register_cpu_solutions(registry);
  Tuner tuner(backend, registry, quick_options());
  // The two smallest lines of the bundled fp32 GPT-2 fixture, and a bf16 one.
  std::ifstream in(std::string(GEMMTUNE_TEST_FIXTURES) + "/gpt2_fp32_untuned.csv");
  std::vector<Problem> problems;
  for (std::string line; std::getline(in, line);) {
    const auto comma = line.find(',');
    if (comma == std::string::npos) continue;
    const Problem p = parse_problem(line.substr(0, comma), line.substr(comma + 1));
    if (p.flops() < 70e6) problems.push_back(p);
  }
  ASSERT_FALSE(problems.empty());
  problems.resize(std::min<std::size_t>(problems.size(), 2));
  problems.push_back(parse_problem("GemmTunableOp_BFloat16_TN", "tn_96_64_128_ld_128_128_96"));
  for (const Problem& p : problems) {
    SCOPED_TRACE(p.params_signature());
    int progress_calls = 0;
    const TuningReport r = tuner.tune(p, [&](const CandidateReport&, int, int) { ++progress_calls; });
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_FALSE(r.winner.empty());
    EXPECT_GT(r.winner_stats.iterations, 0);
    EXPECT_GT(r.default_stats.iterations, 0);
    EXPECT_GE(r.speedup_over_default(), 1.0);
    EXPECT_GE(r.rotation.footprint_bytes, 4u << 20);
    EXPECT_EQ(progress_calls, static_cast<int>(r.candidates.size()));
    for (const CandidateReport& c : r.candidates) {
      EXPECT_NE(c.disposition, Disposition::Incorrect) << c.solution << ": " << c.reason;
      EXPECT_NE(c.disposition, Disposition::Failed) << c.solution << ": " << c.reason;
      if (c.disposition == Disposition::Unsupported) {
        EXPECT_FALSE(c.reason.empty());
      }
    }
  }
}

TEST(CpuTuner, ProblemsTooLargeForMemoryAreReportedNotFatal) {
  cpu::CpuBackend backend;
  Registry registry;
  register_cpu_solutions(registry);
  const Problem huge = Problem::make(OpKind::Gemm, DType::Float64, Transpose::N, Transpose::N,
                                     1 << 20, 1 << 20, 1 << 10);
  const TuningReport r = Tuner(backend, registry, quick_options()).tune(huge);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("MiB"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace gemmtune
