// run_bench and measure_pair on the CPU backend: two rows per case in workload order, exactly the
// asked iterations, metrics that agree with the row's own samples, solutions from a results file
// (and their fallback), skipped dtypes, and a failing solution that fails only its row.
#include "drivers/bench/bench_run.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "db/results_store.hpp"
#include "drivers/bench/pair_measure.hpp"
#include "drivers/bench/workload.hpp"
#include "drivers/solution_resolver.hpp"
#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/register_cpu.hpp"
#include "validator/collect.hpp"

namespace gemmtune::bench {
namespace {

// A solution only a results file can name; every run of it fails.
class FailingSolution final : public Solution {
 public:
  const std::string& name() const override { return name_; }
  Support supports(const Problem&) const override { return Support::yes(); }
  RunStatus run(const Problem&, const Operands&, void*) override {
    return RunStatus::failure("told to fail");
  }

 private:
  std::string name_ = "Test_Failing";
};

class FailingProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "test_failing"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    return {};
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name != "Test_Failing") return nullptr;
    return std::make_unique<FailingSolution>();
  }
};

class RecordingObserver final : public BenchObserver {
 public:
  void on_case(const BenchCase&, std::size_t index, std::size_t, std::string_view phase) override {
    phases.push_back(std::to_string(index) + ":" + std::string(phase));
  }
  void on_rows(const BenchResult& so_far) override { rows_seen.push_back(so_far.rows.size()); }
  std::vector<std::string> phases;
  std::vector<std::size_t> rows_seen;
};

class BenchRunCpu : public ::testing::Test {
 protected:
  cpu::CpuBackend backend;
  Registry registry;
  BenchOptions options;
  DevicePeaks peaks;

  void SetUp() override {
    register_cpu_solutions(registry);
    registry.add(std::make_shared<FailingProvider>());
    options.warmup_ms = 1;
    options.warmup_iterations = 1;
    options.tuner.timing.max_tuning_duration_ms = 2;
    options.tuner.timing.max_tuning_iterations = 5;
    options.tuner.timing.rotating_buffer_mb = 0;  // one operand set: quick
    peaks.memory_bandwidth_gb_s = 10;
    peaks.dense_tflops_by_dtype.emplace("float32", 1.0);
    peaks.source = "test";
  }

  std::vector<BenchCase> cases(const std::string& json) {
    return parse_workload(json, "gemm.json").cases;
  }
};

// Each ok row's figures are those of compute_metrics on its own samples' summary: recomputed
// here from the row's average latency by the definitions (µs; 1 GB = 1e9 bytes).
void expect_consistent(const BenchRow& r) {
  ASSERT_TRUE(r.metrics);
  const BenchMetrics& m = *r.metrics;
  const BenchCase& c = r.bench_case;
  const double flops = 2.0 * c.m * c.n * c.k;
  const double bytes = 4.0 * (c.m * c.k + c.k * c.n + c.m * c.n);  // float32
  EXPECT_NEAR(m.tflops, flops / (m.avg_latency_us * 1e-6) / 1e12, 1e-12 * m.tflops);
  EXPECT_DOUBLE_EQ(m.memory_mb, bytes / 1e6);
  EXPECT_NEAR(m.algo_bandwidth_gb_s, bytes / (m.avg_latency_us * 1e-6) / 1e9,
              1e-12 * m.algo_bandwidth_gb_s);
  EXPECT_NEAR(*m.bandwidth_utilization_percent, m.algo_bandwidth_gb_s / 10 * 100, 1e-9);
  EXPECT_NEAR(*m.flops_utilization_percent, m.tflops / 1 * 100, 1e-9);
  EXPECT_LE(m.min_latency_us, m.median_latency_us);
  EXPECT_LE(m.median_latency_us, m.max_latency_us);
  EXPECT_GT(m.min_latency_us, 0);
}

TEST_F(BenchRunCpu, TwoRowsPerCaseInWorkloadOrder) {
  const auto cs = cases(R"({"cases": [{"dtype": ["float32", "int8"], "M": [8, 16], "K": 24,
                                       "N": 32, "iterations": 6}]})");
  ASSERT_EQ(cs.size(), 4u);
  RecordingObserver observer;
  const BenchResult r = run_bench(backend, registry, cs, options, peaks, nullptr, observer);
  ASSERT_EQ(r.rows.size(), 8u);
  EXPECT_EQ(r.cases_run, 4u);
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.complete());  // int8 is skipped
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const BenchRow& row = r.rows[i];
    EXPECT_EQ(row.case_index, i / 2);
    EXPECT_EQ(row.kind, i % 2 == 0 ? RowKind::Default : RowKind::Tuned);
    if (row.bench_case.dtype == "int8") {
      EXPECT_EQ(row.status, RowStatus::Skipped);
      EXPECT_FALSE(row.metrics);
      EXPECT_NE(row.error.find("int8"), std::string::npos);
      continue;
    }
    ASSERT_EQ(row.status, RowStatus::Ok) << row.error;
    EXPECT_EQ(row.metrics->iterations, 6);
    EXPECT_EQ(row.gemm_dtype, "float32");
    EXPECT_EQ(row.op_signature, "GemmTunableOp_float_NN");
    expect_consistent(row);
    if (row.kind == RowKind::Default) {
      EXPECT_EQ(row.solution, "Default");
      EXPECT_EQ(row.source, "default");
      EXPECT_FALSE(row.speedup_vs_default);
    } else {
      EXPECT_EQ(row.source, "tuned");
      EXPECT_FALSE(row.solution.empty());
      ASSERT_TRUE(row.speedup_vs_default);
      EXPECT_DOUBLE_EQ(*row.speedup_vs_default,
                       r.rows[i - 1].metrics->avg_latency_us / row.metrics->avg_latency_us);
    }
  }
  EXPECT_EQ(r.rows[0].params_signature, "nn_32_8_24_ld_32_24_32");
  EXPECT_EQ(r.rows[2].params_signature, "nn_32_16_24_ld_32_24_32");
  // Tuned then measured, case by case (int8 cases never reach a phase); files after each case.
  EXPECT_EQ(observer.phases,
            (std::vector<std::string>{"0:tuning", "0:measuring", "1:tuning", "1:measuring"}));
  EXPECT_EQ(observer.rows_seen, (std::vector<std::size_t>{2, 4, 6, 8}));
}

TEST_F(BenchRunCpu, SolutionsFromAResultsFile) {
  const auto cs = cases(R"({"cases": [{"dtype": "float32", "M": [8, 16, 24], "K": 24, "N": 32,
                                       "iterations": 4}]})");
  TunedSolutions tuned;
  tuned.file = "r.csv";
  tuned.this_environment = true;
  tuned.by_signature[{"GemmTunableOp_float_NN", "nn_32_8_24_ld_32_24_32"}] = "Cpu_OpenBLAS";
  tuned.by_signature[{"GemmTunableOp_float_NN", "nn_32_16_24_ld_32_24_32"}] = "No_Such_Solution";
  RecordingObserver observer;
  const BenchResult r = run_bench(backend, registry, cs, options, peaks, &tuned, observer);
  ASSERT_EQ(r.rows.size(), 6u);
  // Looked up: measured beside Default without tuning.
  EXPECT_EQ(r.rows[1].source, "results");
  EXPECT_EQ(r.rows[1].solution, "Cpu_OpenBLAS");
  ASSERT_EQ(r.rows[1].status, RowStatus::Ok) << r.rows[1].error;
  EXPECT_EQ(r.rows[1].metrics->iterations, 4);
  // A name that cannot run here: Default instead, said so in a note.
  EXPECT_EQ(r.rows[3].source, "fallback");
  EXPECT_EQ(r.rows[3].solution, "Default");
  EXPECT_EQ(*r.rows[3].speedup_vs_default, 1.0);
  EXPECT_EQ(r.rows[3].metrics->avg_latency_us, r.rows[2].metrics->avg_latency_us);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("No_Such_Solution"), std::string::npos) << r.notes[0];
  // Not in the file: tuned on the spot.
  EXPECT_EQ(r.rows[5].source, "tuned");
  EXPECT_EQ(observer.phases,
            (std::vector<std::string>{"0:measuring", "1:measuring", "2:tuning", "2:measuring"}));
  EXPECT_TRUE(r.complete());
}

TEST_F(BenchRunCpu, AFailingSolutionFailsOnlyItsRow) {
  const auto cs = cases(R"({"cases": [{"dtype": "float32", "M": [8, 16], "K": 24, "N": 32,
                                       "iterations": 4}]})");
  TunedSolutions tuned;
  tuned.file = "elsewhere.csv";  // measured elsewhere: a note says so
  tuned.by_signature[{"GemmTunableOp_float_NN", "nn_32_8_24_ld_32_24_32"}] = "Test_Failing";
  BenchObserver quiet;
  const BenchResult r = run_bench(backend, registry, cs, options, peaks, &tuned, quiet);
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(r.rows[0].status, RowStatus::Ok);
  EXPECT_EQ(r.rows[1].status, RowStatus::Failed);
  EXPECT_EQ(r.rows[1].error, "Test_Failing failed: told to fail");
  EXPECT_FALSE(r.rows[1].speedup_vs_default);
  EXPECT_EQ(r.rows[2].status, RowStatus::Ok);  // the run went on
  EXPECT_EQ(r.rows[3].status, RowStatus::Ok);
  EXPECT_FALSE(r.complete());
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_NE(r.notes[0].find("elsewhere.csv was measured in another environment"),
            std::string::npos);
  EXPECT_NE(r.notes[1].find("8x24x32 float32 (cases[0]): tuned: Test_Failing failed"),
            std::string::npos)
      << r.notes[1];
}

TEST_F(BenchRunCpu, LoadsTunedSolutionsFromAResultsStore) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gemmtune_bench_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Environment here = collect_environment(backend);
  {
    auto store = open_results_store(dir / "r.csv");
    store->append(here,
                  {"GemmTunableOp_float_NN", "nn_32_8_24_ld_32_24_32", "Cpu_OpenBLAS", 0.01, {}});
  }
  const TunedSolutions t = load_tuned_solutions((dir / "r.csv").string(), here);
  EXPECT_TRUE(t.this_environment);
  ASSERT_EQ(t.by_signature.size(), 1u);
  EXPECT_EQ(t.by_signature.begin()->second, "Cpu_OpenBLAS");
  Environment other = here;
  other.set("GEMMTUNE_VERSION", "0.0.0");
  EXPECT_FALSE(load_tuned_solutions((dir / "r.csv").string(), other).this_environment);
  std::filesystem::remove_all(dir);
}

TEST_F(BenchRunCpu, MeasurePairTakesExactlyTheIterations) {
  BenchCase c;
  c.m = 8;
  c.k = 24;
  c.n = 32;
  c.gemm_dtype = DType::Float32;
  const Problem p = problem_for_case(c);
  auto def = resolve_solution(registry, "cpu", p, "Default", SearchOptions{});
  auto blas = resolve_solution(registry, "cpu", p, "Cpu_OpenBLAS", SearchOptions{});
  ASSERT_FALSE(blas.fell_back) << blas.warning;
  MeasureOptions m;
  m.warmup_ms = 1;
  m.warmup_iterations = 2;
  m.timing.rotating_buffer_mb = 0;
  for (int iterations : {1, 3, 7, 10}) {
    m.iterations = iterations;
    const PairMeasurement pm = measure_pair(backend, p, *def.solution, blas.solution.get(), m);
    EXPECT_EQ(pm.baseline.samples_ms.size(), static_cast<std::size_t>(iterations));
    ASSERT_TRUE(pm.other);
    EXPECT_EQ(pm.other->samples_ms.size(), static_cast<std::size_t>(iterations));
    EXPECT_EQ(pm.baseline.stats.iterations, iterations);
    EXPECT_EQ(pm.rotation.copies, 1);
  }
  const PairMeasurement alone = measure_pair(backend, p, *def.solution, nullptr, m);
  EXPECT_FALSE(alone.other);
  EXPECT_EQ(alone.baseline.samples_ms.size(), 10u);
  // Rotation by default: copies covering twice the last-level cache (or a flush instead).
  MeasureOptions rotating;
  rotating.iterations = 2;
  rotating.timing.rotating_buffer_mb = 1;
  const PairMeasurement r = measure_pair(backend, p, *def.solution, nullptr, rotating);
  EXPECT_GT(r.rotation.copies, 1);
}

}  // namespace
}  // namespace gemmtune::bench
