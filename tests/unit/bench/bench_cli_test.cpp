// `gemmtune bench` from the command line, on the CPU backend with the small micro_perf-style
// workloads of tests/fixtures/bench/: exit codes, one CSV row per case and solution kind, every
// row's derived metrics recomputed from its own latencies by the definitions (µs, 1 MB = 1e6
// bytes, 1 GB = 1e9 bytes), the JSONL agreeing with the CSV, --results, and a bad workload.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "csv_cells.hpp"

namespace gemmtune::bench {
namespace {

using Json = nlohmann::json;
using Row = std::map<std::string, std::string>;
namespace fs = std::filesystem;

struct Outcome {
  int status = -1;
  std::string output;  // stdout and stderr
};

Outcome gemmtune(const std::string& args) {
  const std::string cmd = std::string(GEMMTUNE_EXECUTABLE) + " " + args + " 2>&1";
  Outcome r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    r.output.append(buffer, n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<Row> read_csv(const fs::path& p) {
  const auto lines = lines_of(read(p));
  EXPECT_FALSE(lines.empty()) << p;
  if (lines.empty()) return {};
  const auto header = test::split_csv(lines[0]);
  std::vector<Row> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = test::split_csv(lines[i]);
    EXPECT_EQ(cells.size(), header.size()) << lines[i];
    Row row;
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(std::move(row));
  }
  return rows;
}

double num(const Row& row, const std::string& key) {
  return std::stod(row.at(key));
}

std::size_t element_bytes(const std::string& gemm_dtype) {
  if (gemm_dtype == "float32" || gemm_dtype == "tf32") return 4;
  if (gemm_dtype == "bfloat16" || gemm_dtype == "float16") return 2;
  ADD_FAILURE() << "unexpected dtype " << gemm_dtype;
  return 0;
}

// The CSV holds 6 significant digits: each figure is recomputed from the row's own rounded
// average latency, within what the rounding of both allows.
void expect_consistent(const Row& r, double peak_gb_s, double peak_tflops) {
  const double m = num(r, "M"), k = num(r, "K"), n = num(r, "N");
  const double avg_s = num(r, "avg_latency_us") * 1e-6;
  const double bytes =
      (m * k + k * n + m * n) * static_cast<double>(element_bytes(r.at("gemm_dtype")));
  const double tflops = 2 * m * n * k / avg_s / 1e12;
  const double gb_s = bytes / avg_s / 1e9;
  const double tol = 2e-5;  // relative
  EXPECT_NEAR(num(r, "tflops"), tflops, tol * tflops) << r.at("params_signature");
  EXPECT_NEAR(num(r, "memory_mb"), bytes / 1e6, tol * bytes / 1e6);
  EXPECT_NEAR(num(r, "algo_bandwidth_gb_s"), gb_s, tol * gb_s);
  EXPECT_NEAR(num(r, "bandwidth_utilization_percent"), gb_s / peak_gb_s * 100,
              tol * gb_s / peak_gb_s * 100);
  EXPECT_NEAR(num(r, "flops_utilization_percent"), tflops / peak_tflops * 100,
              tol * tflops / peak_tflops * 100);
  EXPECT_LE(num(r, "min_latency_us"), num(r, "median_latency_us"));
  EXPECT_LE(num(r, "median_latency_us"), num(r, "max_latency_us"));
  EXPECT_LE(num(r, "min_latency_us"), num(r, "avg_latency_us"));
  EXPECT_LE(num(r, "avg_latency_us"), num(r, "max_latency_us"));
}

class BenchCli : public ::testing::Test {
 protected:
  fs::path dir;
  // Quick on the CPU: small rotation, short tuning.
  const std::string quick =
      " --backend cpu --rotating-buffer-mb 1 --max-tuning-duration-ms 5 --warmup-ms 2 "
      "--warmup-iterations 2";

  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("gemmtune_bench_cli_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir);
  }
};

TEST_F(BenchCli, OldFormWorkloadEveryMetricChecked) {
  const Outcome r =
      gemmtune("bench " GEMMTUNE_TEST_FIXTURES "/bench/gemm_small.json" + quick +
               " --peak-tflops 1 --peak-bandwidth-gb-s 10 --output-csv " +
               (dir / "out.csv").string() + " --output-jsonl " + (dir / "out.jsonl").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("Units: latency in µs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Peaks (--peak-tflops, --peak-bandwidth-gb-s)"), std::string::npos);
  EXPECT_NE(r.output.find("Summary: 6 of 6 case(s) run: 6 measured, 0 failed, 0 skipped"),
            std::string::npos);

  // 3 shapes x 2 dtypes, each with a default and a tuned row, in workload order.
  const auto rows = read_csv(dir / "out.csv");
  ASSERT_EQ(rows.size(), 12u);
  const std::vector<std::string> mkn{"32x48x40", "64x64x64", "16x128x24"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const std::size_t c = i / 2;
    EXPECT_EQ(row.at("case"), std::to_string(c));
    EXPECT_EQ(row.at("kind"), i % 2 ? "tuned" : "default");
    EXPECT_EQ(row.at("M") + "x" + row.at("K") + "x" + row.at("N"), mkn[c % 3]);
    EXPECT_EQ(row.at("dtype"), c < 3 ? "float32" : "bfloat16");
    EXPECT_EQ(row.at("status"), "ok") << row.at("error");
    EXPECT_EQ(row.at("iterations"), "20");
    EXPECT_EQ(row.at("op_signature"),
              c < 3 ? "GemmTunableOp_float_NN" : "GemmTunableOp_BFloat16_NN");
    expect_consistent(row, 10, 1);
    if (i % 2) {
      const double speedup = num(rows[i - 1], "avg_latency_us") / num(row, "avg_latency_us");
      EXPECT_NEAR(num(row, "speedup_vs_default"), speedup, 2e-5 * speedup);
    } else {
      EXPECT_EQ(row.at("solution"), "Default");
      EXPECT_EQ(row.at("speedup_vs_default"), "");
    }
  }
  EXPECT_EQ(rows[0].at("params_signature"), "nn_40_32_48_ld_40_48_40");

  // JSONL: the run record, then the same rows with unrounded numbers.
  const auto lines = lines_of(read(dir / "out.jsonl"));
  ASSERT_EQ(lines.size(), 13u);
  const Json run = Json::parse(lines[0]);
  EXPECT_EQ(run["record"], "run");
  EXPECT_EQ(run["complete"], true);
  EXPECT_EQ(run["cases"], 6);
  EXPECT_EQ(run["backend"], "cpu");
  EXPECT_EQ(run["peaks"]["memory_bandwidth_gb_s"], 10.0);
  EXPECT_EQ(run["peaks"]["dense_tflops"]["bfloat16"], 1.0);
  EXPECT_FALSE(run["ended_at"].is_null());
  EXPECT_EQ(Json::parse(read(dir / "out.meta.json")), run);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json j = Json::parse(lines[i + 1]);
    EXPECT_EQ(j["record"], "result");
    EXPECT_EQ(j["solution"], rows[i].at("solution"));
    const double avg_s = j["avg_latency_us"].get<double>() * 1e-6;
    const double flops = 2.0 * j["M"].get<double>() * j["N"].get<double>() * j["K"].get<double>();
    EXPECT_NEAR(j["tflops"].get<double>(), flops / avg_s / 1e12, 1e-9 * j["tflops"].get<double>());
    EXPECT_NEAR(j["flops_utilization_percent"].get<double>(), j["tflops"].get<double>() * 100,
                1e-9);
    EXPECT_NEAR(j["avg_latency_us"].get<double>(), num(rows[i], "avg_latency_us"),
                1e-5 * j["avg_latency_us"].get<double>());
  }
}

TEST_F(BenchCli, CasesFormSkipsDtypesWithoutAGemm) {
  const Outcome r = gemmtune("bench " GEMMTUNE_TEST_FIXTURES "/bench/gemm.json" + quick +
                             " --iterations 3 --output-csv " + (dir / "out.csv").string());
  EXPECT_EQ(r.status, 5) << r.output;  // partial: int8 cases are skipped
  const auto rows = read_csv(dir / "out.csv");
  ASSERT_EQ(rows.size(), 24u);  // 3 dtypes x 2 (K, N) x 2 M, two rows each
  std::size_t skipped = 0;
  for (const Row& row : rows) {
    EXPECT_EQ(row.at("iterations"), "3");
    if (row.at("dtype") == "int8") {
      EXPECT_EQ(row.at("status"), "skipped");
      EXPECT_EQ(row.at("tflops"), "");
      ++skipped;
    } else {
      EXPECT_EQ(row.at("status"), "ok") << row.at("error");
      EXPECT_EQ(row.at("bandwidth_utilization_percent"), "");  // no peak known for a CPU
    }
  }
  EXPECT_EQ(skipped, 8u);
  // The first case: dtype, then (K, N), then M, as the keys are written.
  EXPECT_EQ(rows[0].at("M") + " " + rows[0].at("K") + " " + rows[0].at("N"), "8 64 48");
  EXPECT_EQ(rows[2].at("M"), "40");
  EXPECT_NE(r.output.find("Summary: 12 of 12 case(s) run: 8 measured, 0 failed, 4 skipped"),
            std::string::npos)
      << r.output;
}

TEST_F(BenchCli, TunedSolutionsFromAResultsFile) {
  std::ofstream(dir / "results.csv") << "Validator,GEMMTUNE_VERSION,0.0.1\n"
                                        "GemmTunableOp_float_NN,nn_40_32_48_ld_40_48_40,"
                                        "Cpu_OpenBLAS,0.01\n";
  const Outcome r =
      gemmtune("bench " GEMMTUNE_TEST_FIXTURES "/bench/gemm_small.json" + quick +
               " --dtype float32 --iterations 3 --results " + (dir / "results.csv").string() +
               " --output-jsonl " + (dir / "out.jsonl").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("was measured in another environment"), std::string::npos) << r.output;
  const auto lines = lines_of(read(dir / "out.jsonl"));
  ASSERT_EQ(lines.size(), 7u);  // run record + 3 cases x 2
  const Json first_tuned = Json::parse(lines[2]);
  EXPECT_EQ(first_tuned["source"], "results");
  EXPECT_EQ(first_tuned["solution"], "Cpu_OpenBLAS");
  EXPECT_EQ(Json::parse(lines[4])["source"], "tuned");  // not in the file: tuned on the spot
  EXPECT_NE(Json::parse(lines[0])["results_file"].get<std::string>().find("results.csv"),
            std::string::npos);
}

TEST_F(BenchCli, BadWorkloadsAndOptions) {
  std::ofstream(dir / "gemm.json")
      << R"({"cases": [{"M": -4, "K": 2, "N": 3, "dtype": "float32"}]})";
  Outcome r = gemmtune("bench " + (dir / "gemm.json").string() + " --backend cpu");
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("gemm.json: cases[0].M: expected a positive integer"), std::string::npos)
      << r.output;
  r = gemmtune("bench " GEMMTUNE_TEST_FIXTURES
               "/bench/gemm_small.json --backend cpu --dtype quarter");
  EXPECT_EQ(r.status, 2) << r.output;  // a bad command line, refused as --dtype is parsed
  EXPECT_NE(r.output.find("--dtype: unknown dtype 'quarter'; known: float32"), std::string::npos)
      << r.output;
  r = gemmtune("bench --backend cpu");
  EXPECT_EQ(r.status, 2) << r.output;  // the workload is required
  r = gemmtune("bench --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("--peak-bandwidth-gb-s"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gemmtune::bench
