// The whole engine on a real GPU: a tuned winner survives a trip through a results file and
// rebuilds the same solution; a name that no longer checks falls back to Default with a warning
// naming the problem; faulty candidates (fast but wrong) are Incorrect and never win.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "db/results_store.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/solution_resolver.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/cublaslt_solution.hpp"
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
  const TuningReport report =
      Tuner(*session_.backend, *session_.registry, quick_options()).tune(problem);
  ASSERT_TRUE(report.ok()) << report.error;
  EXPECT_GE(report.speedup_over_default(), 1.0);
  // Measured over rotating operand sets of at least twice the L2 (read from the device), no flush.
  const std::size_t l2 = session_.backend->properties().last_level_cache_bytes;
  EXPECT_GT(l2, 0u);
  EXPECT_GT(report.rotation.copies, 1) << report.rotation.describe();
  EXPECT_GE(report.rotation.footprint_bytes, 2 * l2) << report.rotation.describe();
  EXPECT_FALSE(report.rotation.flush) << report.rotation.describe();

  const auto path = std::filesystem::temp_directory_path() / "gemmtune_gpu_round_trip.csv";
  std::filesystem::remove(path);
  const Environment env = collect_environment(*session_.backend);
  open_results_store(path)->append(env, {problem.op_signature(),
                                         problem.params_signature(),
                                         report.winner,
                                         report.winner_stats.median_ms,
                                         {}});
  const auto tables = open_results_store(path)->load();
  std::filesystem::remove(path);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].environment, env);
  ASSERT_EQ(tables[0].entries.size(), 1u);
  const ResultEntry& entry = tables[0].entries[0];
  EXPECT_EQ(entry.solution, report.winner);

  const ResolvedSolution resolved = resolve_solution(
      *session_.registry, "cuda", parse_problem(entry.op_signature, entry.params_signature),
      entry.solution, SearchOptions{});
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

// Default of GemmAndBias is cuBLASLt's heuristic #0, asked within the tuning's workspace limit:
// with none allowed it must still be there (on a long k the unlimited #0 splits k in a workspace).
TEST_F(GpuTuning, DefaultWithBiasStaysWithinTheWorkspaceLimit) {
  const Problem problem = Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::T,
                                        Transpose::N, 64, 64, 16384);
  TunerOptions options = quick_options();
  options.search.max_workspace_bytes = 0;
  const TuningReport report = Tuner(*session_.backend, *session_.registry, options).tune(problem);
  ASSERT_TRUE(report.ok()) << report.error;
  for (const CandidateReport& c : report.candidates) {
    if (c.solution == kDefaultSolutionName) {
      EXPECT_NE(c.disposition, Disposition::Unsupported) << c.reason;
    }
  }
}

// cuBLASLt's names in PyTorch's format go into a results file and come back as the same
// configuration, which runs and agrees with the reference: the heuristic's first proposal, one from
// the middle and the last variant.
TEST_F(GpuTuning, CublasLtNamesRoundTripThroughAResultsFile) {
  const Problem problem =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::N, Transpose::N, 1024, 512, 768);
  auto candidates = cuda::CublasLtProvider().enumerate(problem, SearchOptions{});
  ASSERT_GE(candidates.size(), 3u);
  const std::regex pytorch_format(
      R"(Gemm_Cublaslt_id_-?\d+_tile_\d+_stages_\d+_splitk_-?\d+_red_\d+_swizzle_\d+_custom_\d+_inner_\d+_cluster_\d+)");
  const Environment env = collect_environment(*session_.backend);
  auto& backend = dynamic_cast<CudaBackend&>(*session_.backend);
  gpu_test::DeviceOperands ops(backend, problem, 1.0, 0.0);
  const auto path = std::filesystem::temp_directory_path() / "gemmtune_gpu_lt_round_trip.csv";
  for (const std::size_t i : {std::size_t{0}, candidates.size() / 2, candidates.size() - 1}) {
    const std::string name = candidates[i]->name();
    SCOPED_TRACE(name);
    EXPECT_TRUE(std::regex_match(name, pytorch_format));
    std::filesystem::remove(path);
    open_results_store(path)->append(
        env, {problem.op_signature(), problem.params_signature(), name, 0.01, {}});
    const auto tables = open_results_store(path)->load();
    ASSERT_EQ(tables.size(), 1u);
    ASSERT_EQ(tables[0].entries.size(), 1u);
    const ResultEntry& entry = tables[0].entries[0];
    EXPECT_EQ(entry.solution, name);
    const ResolvedSolution resolved = resolve_solution(
        *session_.registry, "cuda", parse_problem(entry.op_signature, entry.params_signature),
        entry.solution, SearchOptions{});
    EXPECT_FALSE(resolved.fell_back) << resolved.warning;
    ASSERT_TRUE(resolved.solution);
    EXPECT_EQ(resolved.solution->name(), name);
    const auto* lt = dynamic_cast<const cuda::LtSolution*>(resolved.solution.get());
    ASSERT_NE(lt, nullptr);
    ASSERT_TRUE(lt->config().has_value());
    EXPECT_EQ(cuda::algo_name(*lt->config()), name);  // the algorithm's own attributes
    EXPECT_EQ(gpu_test::run_and_check(*resolved.solution, ops), "");
  }
  std::filesystem::remove(path);
}

// A real cuBLASLt candidate handed a misaligned A fails with its reason; the tuner records it as
// Failed and the sweep goes on to a correct winner.
class MisalignedSolution final : public Solution {
 public:
  explicit MisalignedSolution(std::unique_ptr<Solution> inner)
      : inner_(std::move(inner)), name_("Misaligned_" + inner_->name()) {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem& p) const override { return inner_->supports(p); }
  std::size_t workspace_bytes(const Problem& p) const override {
    return inner_->workspace_bytes(p);
  }
  RunStatus run(const Problem& p, const Operands& o, void* stream) override {
    Operands shifted = o;
    shifted.a = static_cast<const char*>(o.a) + 2;
    return inner_->run(p, shifted, stream);
  }

 private:
  std::unique_ptr<Solution> inner_;
  std::string name_;
};

class MisalignedProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "misaligned"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions& options) override {
    auto lt = cuda::CublasLtProvider().enumerate(p, options);
    std::vector<std::unique_ptr<Solution>> out;
    if (!lt.empty()) out.push_back(std::make_unique<MisalignedSolution>(std::move(lt.front())));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override { return nullptr; }
};

TEST_F(GpuTuning, AFailingCandidateIsRecordedAndTheSweepGoesOn) {
  session_.registry->add(std::make_shared<MisalignedProvider>());
  const Problem problem = decode_bf16();
  const TuningReport report =
      Tuner(*session_.backend, *session_.registry, quick_options()).tune(problem);
  ASSERT_TRUE(report.ok()) << report.error;
  EXPECT_FALSE(report.fatal);
  EXPECT_EQ(report.winner.rfind("Misaligned_", 0), std::string::npos) << report.winner;
  int failed = 0, measured = 0;
  for (const auto& c : report.candidates) {
    if (c.solution.rfind("Misaligned_", 0) == 0) {
      ++failed;
      EXPECT_EQ(c.disposition, Disposition::Failed) << c.reason;
      EXPECT_NE(c.reason.find("not aligned"), std::string::npos) << c.reason;
    } else if (c.stats.median_ms > 0) {
      ++measured;
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_GT(measured, 1);  // Default and the others ran before and after it
  EXPECT_GT(report.default_stats.median_ms, 0);
}

TEST_F(GpuTuning, NameThatNoLongerChecksFallsBackToDefault) {
  const Problem problem = decode_bf16();
  // A real algorithm id with a tile no Hopper kernel has.
  const std::string stale =
      "Gemm_Cublaslt_id_66_tile_9999_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0";
  const ResolvedSolution resolved =
      resolve_solution(*session_.registry, "cuda", problem, stale, SearchOptions{});
  EXPECT_TRUE(resolved.fell_back);
  ASSERT_TRUE(resolved.solution);
  EXPECT_EQ(resolved.solution->name(), kDefaultSolutionName);
  EXPECT_NE(resolved.warning.find(problem.params_signature()), std::string::npos)
      << resolved.warning;
  EXPECT_NE(resolved.warning.find(stale), std::string::npos) << resolved.warning;
}

TEST_F(GpuTuning, DefaultOfGemmAndBiasIsRebuiltUnderTheCallersWorkspaceLimit) {
  // Default of GemmAndBias is cuBLASLt's heuristic pick under the workspace limit: rebuilt from a
  // results file (and as the fallback of a stale name), it is the pick a tuning under the same
  // limit measured, which never needs more workspace than the limit.
  const Problem problem = Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::T,
                                        Transpose::N, 4096, 16, 16384);
  const std::string stale =
      "Gemm_Cublaslt_id_66_tile_9999_stages_8_splitk_1_red_0_swizzle_0_custom_0_inner_0_cluster_0";
  for (const std::size_t limit : {std::size_t{0}, std::size_t{1} << 20, std::size_t{32} << 20}) {
    SearchOptions limits;
    limits.max_workspace_bytes = limit;
    for (const std::string& name : {std::string(kDefaultSolutionName), stale}) {
      const ResolvedSolution r =
          resolve_solution(*session_.registry, "cuda", problem, name, limits);
      ASSERT_TRUE(r.solution) << name << ": " << r.warning;
      EXPECT_EQ(r.solution->name(), kDefaultSolutionName);
      EXPECT_LE(r.solution->workspace_bytes(problem), limit) << name;
      const auto measured = session_.registry->enumerate("cuda", problem, limits);
      const auto d = std::find_if(measured.begin(), measured.end(),
                                  [](const auto& s) { return s->name() == kDefaultSolutionName; });
      ASSERT_NE(d, measured.end());
      EXPECT_EQ(r.solution->workspace_bytes(problem), (*d)->workspace_bytes(problem))
          << "limit " << limit << ": not the Default a tuning under that limit measures";
    }
  }
}

// Candidates that are faster than any correct one because they skip or spoil the work. The last
// is right under the tuned alpha = 1 and beta = 0 and wrong under any other scalars, which only
// the numerical check's second run sees.
class FaultySolution final : public Solution {
 public:
  enum class Fault { Skip, DoubleAlpha, IgnoreScalars };
  FaultySolution(const Problem& p, Fault fault)
      : inner_(cuda::make_default_solution(p)), fault_(fault), name_(name_of(fault)) {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem& p) const override { return inner_->supports(p); }
  std::size_t workspace_bytes(const Problem& p) const override {
    return inner_->workspace_bytes(p);
  }
  RunStatus run(const Problem& p, const Operands& o, void* stream) override {
    if (fault_ == Fault::Skip) return RunStatus::success();  // leaves C as it was
    Operands wrong = o;
    if (fault_ == Fault::DoubleAlpha) {
      wrong.alpha *= 2;
    } else {
      wrong.alpha = 1;
      wrong.beta = 0;
    }
    return inner_->run(p, wrong, stream);
  }

 private:
  static std::string name_of(Fault fault) {
    switch (fault) {
      case Fault::Skip:
        return "Faulty_Skip";
      case Fault::DoubleAlpha:
        return "Faulty_DoubleAlpha";
      case Fault::IgnoreScalars:
        return "Faulty_IgnoreScalars";
    }
    return "Faulty";
  }

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
    out.push_back(std::make_unique<FaultySolution>(p, FaultySolution::Fault::IgnoreScalars));
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
    if (c.solution == "Faulty_IgnoreScalars") {
      EXPECT_EQ(c.reason.rfind("at alpha = 0.75, beta = -0.5: ", 0), 0u) << c.reason;
    }
  }
}

// The device check gives what the host check gives, element for element.
TEST_F(GpuTuning, DeviceCheckAgreesWithTheHostCheck) {
  Backend& backend = *session_.backend;
  for (DType dtype :
       {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16, DType::Float8E4M3}) {
    Problem p =
        Problem::make(OpKind::GemmStridedBatched, dtype, Transpose::N, Transpose::N, 37, 19, 8);
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
