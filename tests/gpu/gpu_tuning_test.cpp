// The whole engine on a real GPU: a tuned winner survives a trip through a results file and
// rebuilds the same solution; a name that no longer checks falls back to Default with a warning
// naming the problem; faulty candidates (fast but wrong) are Incorrect and never win.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/results_store.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/solution_resolver.hpp"
#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/skinny_gemm.hpp"
#include "tuner/tuner.hpp"
#include "validator/collect.hpp"

namespace gemmtune {
namespace {

Problem decode_bf16() {
  return Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 4096, 8, 4096);
}

TunerOptions quick_options() {
  TunerOptions o;
  o.timing.max_tuning_duration_ms = 10;
  return o;
}

class GpuTuning : public testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    session_ = open_backend(BackendKind::Cuda, 0);
  }
  BackendSession session_;
};

TEST_F(GpuTuning, WinnerRoundTripsThroughAResultsFile) {
  const Problem problem = decode_bf16();
  const TuningReport report = Tuner(*session_.backend, *session_.registry, quick_options()).tune(problem);
  ASSERT_TRUE(report.ok()) << report.error;
  EXPECT_GE(report.speedup_over_default(), 1.0);

  const auto path = std::filesystem::temp_directory_path() / "gemmtune_gpu_round_trip.csv";
  std::filesystem::remove(path);
  const Environment env = collect_environment(*session_.backend);
  open_results_store(path)->append(env, {problem.op_signature(), problem.params_signature(),
                                         report.winner, report.winner_stats.median_ms, {}});
  const auto tables = open_results_store(path)->load();
  std::filesystem::remove(path);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].environment, env);
  ASSERT_EQ(tables[0].entries.size(), 1u);
  const ResultEntry& entry = tables[0].entries[0];
  EXPECT_EQ(entry.solution, report.winner);

  const ResolvedSolution resolved =
      resolve_solution(*session_.registry, "cuda", parse_problem(entry.op_signature,
                                                                 entry.params_signature),
                       entry.solution);
  EXPECT_FALSE(resolved.fell_back) << resolved.warning;
  ASSERT_TRUE(resolved.solution);
  EXPECT_EQ(resolved.solution->name(), report.winner);
  if (report.winner != kDefaultSolutionName) {
    // cuBLASLt's or one of gemmtune's own kernels (which win small decode GEMMs).
    EXPECT_TRUE(cuda::parse_algo_name(report.winner).has_value() ||
                cuda::parse_skinny_solution_name(report.winner).has_value())
        << report.winner;
  }
}

TEST_F(GpuTuning, NameThatNoLongerChecksFallsBackToDefault) {
  const Problem problem = decode_bf16();
  // A real algorithm id with a tile no Hopper kernel has.
  const std::string stale =
      "Gemm_Cublaslt_id_66_tile_9999_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0";
  const ResolvedSolution resolved =
      resolve_solution(*session_.registry, "cuda", problem, stale);
  EXPECT_TRUE(resolved.fell_back);
  ASSERT_TRUE(resolved.solution);
  EXPECT_EQ(resolved.solution->name(), kDefaultSolutionName);
  EXPECT_NE(resolved.warning.find(problem.params_signature()), std::string::npos)
      << resolved.warning;
  EXPECT_NE(resolved.warning.find(stale), std::string::npos) << resolved.warning;
}

// Candidates that are faster than any correct one because they skip or spoil the work.
class FaultySolution final : public Solution {
 public:
  enum class Fault { Skip, DoubleAlpha };
  FaultySolution(const Problem& p, Fault fault)
      : inner_(cuda::make_default_solution(p)),
        fault_(fault),
        name_(fault == Fault::Skip ? "Faulty_Skip" : "Faulty_DoubleAlpha") {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem& p) const override { return inner_->supports(p); }
  std::size_t workspace_bytes(const Problem& p) const override {
    return inner_->workspace_bytes(p);
  }
  RunStatus run(const Problem& p, const Operands& o, void* stream) override {
    if (fault_ == Fault::Skip) return RunStatus::success();  // leaves C as it was
    Operands wrong = o;
    wrong.alpha *= 2;
    return inner_->run(p, wrong, stream);
  }

 private:
  std::unique_ptr<Solution> inner_;
  Fault fault_;
  std::string name_;
};

class FaultyProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "faulty"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(std::make_unique<FaultySolution>(p, FaultySolution::Fault::Skip));
    out.push_back(std::make_unique<FaultySolution>(p, FaultySolution::Fault::DoubleAlpha));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override { return nullptr; }
};

TEST_F(GpuTuning, FaultyCandidatesAreIncorrectAndNeverWin) {
  session_.registry->add(std::make_shared<FaultyProvider>());
  const Problem problem = decode_bf16();
  // Every candidate is checked: none may be screened out before its numbers are looked at.
  TunerOptions options = quick_options();
  options.timing.max_finalists = 0;
  options.timing.screening_keep_factor = 1e9;
  const TuningReport report = Tuner(*session_.backend, *session_.registry, options).tune(problem);
  ASSERT_TRUE(report.ok()) << report.error;
  EXPECT_EQ(report.winner.rfind("Faulty", 0), std::string::npos) << report.winner;
  for (const auto& c : report.candidates) {
    if (c.solution.rfind("Faulty", 0) == 0) {
      EXPECT_EQ(c.disposition, Disposition::Incorrect) << c.solution << ": " << c.reason;
    }
  }
}

// The device check gives what the host check gives, element for element.
TEST_F(GpuTuning, DeviceCheckAgreesWithTheHostCheck) {
  Backend& backend = *session_.backend;
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16,
                      DType::Float8E4M3}) {
    Problem p = Problem::make(OpKind::GemmStridedBatched, dtype, Transpose::N, Transpose::N, 37,
                              19, 8);
    p.ldc = 41;  // padding between columns is not compared
    p.batch = 3;
    if (dtype == DType::Float8E4M3) {
      p.op = OpKind::ScaledGemm;
      p.batch = 1;
    }
    const auto bytes = static_cast<std::size_t>(p.c_elements()) * element_bytes(dtype);
    auto reference = backend.allocate(bytes);
    auto candidate = backend.allocate(bytes);
    backend.fill_random(*reference, dtype, p.c_elements(), 1);
    backend.fill_random(*candidate, dtype, p.c_elements(), 2);
    const Tolerance tolerance{0.5, 0.25};  // some elements pass, some fail
    const auto on_device = backend.compare_outputs(p, *reference, *candidate, tolerance);
    ASSERT_TRUE(on_device.has_value()) << format_as(dtype);
    const auto host_reference = backend.read_as_double(*reference, dtype, p.c_elements());
    const auto host_candidate = backend.read_as_double(*candidate, dtype, p.c_elements());
    const CheckResult on_host = compare_outputs(p, host_reference, host_candidate, tolerance);
    EXPECT_GT(on_host.mismatches, 0) << format_as(dtype);
    EXPECT_LT(on_host.mismatches, p.m * p.n * p.batch) << format_as(dtype);
    EXPECT_EQ(on_device->mismatches, on_host.mismatches) << format_as(dtype);
    EXPECT_EQ(on_device->passed, on_host.passed);
    EXPECT_DOUBLE_EQ(on_device->worst_ratio, on_host.worst_ratio) << format_as(dtype);
    EXPECT_DOUBLE_EQ(on_device->worst_abs_error, on_host.worst_abs_error) << format_as(dtype);
    const auto self = backend.compare_outputs(p, *reference, *reference, tolerance);
    ASSERT_TRUE(self.has_value());
    EXPECT_TRUE(self->passed);
    const auto rms = backend.output_rms(p, *reference);
    ASSERT_TRUE(rms.has_value());
    const Tolerance host_tol = tolerance_for(p, {}, host_reference);
    EXPECT_NEAR(tolerance_for_rms(p, {}, *rms).atol, host_tol.atol, 1e-12 * host_tol.atol + 1e-300);
  }
}

}  // namespace
}  // namespace gemmtune
