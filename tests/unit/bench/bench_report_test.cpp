// The report's renderings: CSV and JSONL written and read back field by field, the sidecar,
// the terminal cells, and the extra sections.
#include "drivers/bench/bench_report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "csv_cells.hpp"

namespace gemmtune::bench {
namespace {

using Json = nlohmann::ordered_json;

BenchRow ok_row() {
  BenchRow r;
  r.case_index = 3;
  r.bench_case.m = 256;
  r.bench_case.k = 256;
  r.bench_case.n = 256;
  r.bench_case.dtype = "float";
  r.bench_case.gemm_dtype = DType::Float32;
  r.bench_case.iterations = 3;
  r.bench_case.origin = "input_shape_list[1]";
  r.bench_case.arguments = Json::parse(R"({"dtype":"float","input_shapes":[[256,256],[256,256]]})");
  r.gemm_dtype = "float32";
  r.op_signature = "GemmTunableOp_float_NN";
  r.params_signature = "nn_256_256_256_ld_256_256_256";
  r.kind = RowKind::Tuned;
  r.solution = "Cpu_OpenBLAS";
  r.source = std::string(kSourceResults);
  BenchMetrics m;
  m.iterations = 3;
  m.avg_latency_us = 110;
  m.median_latency_us = 110;
  m.min_latency_us = 100;
  m.max_latency_us = 120;
  m.stddev_latency_us = 10;
  m.tflops = 0.30504029090909091;
  m.memory_mb = 0.786432;
  m.algo_bandwidth_gb_s = 7.1493818181818182;
  m.bandwidth_utilization_percent = 71.493818181818182;  // flops utilisation unknown
  r.metrics = m;
  r.speedup_vs_default = 1.25;
  r.conditions = "1 set x 0.75 MiB";
  return r;
}

BenchRow failed_row() {
  BenchRow r;
  r.case_index = 4;
  r.bench_case.m = 1;
  r.bench_case.k = 2;
  r.bench_case.n = 3;
  r.bench_case.dtype = "int8";
  r.bench_case.origin = "cases[0]";
  r.kind = RowKind::Default;
  r.solution = "Default";
  r.source = std::string(kSourceDefault);
  r.status = RowStatus::Failed;
  r.error = "it said \"no\", twice";
  return r;
}

BenchReport report() {
  BenchReport rep;
  rep.run.command_line = "gemmtune bench gemm.json";
  rep.run.started_at = "2026-11-21T11:12:10Z";
  rep.run.workload = "gemm.json";
  rep.run.workload_form = "cases";
  rep.run.cases = 5;
  rep.run.backend = "cpu";
  rep.run.device = "cpu device 0: Test CPU";
  rep.run.versions = {{"GEMMTUNE_VERSION", "0.1.0"}};
  rep.run.peaks.memory_bandwidth_gb_s = 10;
  rep.run.peaks.source = "--peak-bandwidth-gb-s";
  rep.run.measurement = {"line one", "line two"};
  rep.run.tuning = "max_tuning_iterations=100\nseed=42\n";
  rep.result.rows = {ok_row(), failed_row()};
  rep.result.notes = {"a note"};
  rep.result.cases_run = 2;
  rep.extra_sections.push_back({"configuration", "[bench]\nkey = 1\n", Json(nullptr)});
  rep.extra_sections.push_back(
      {"gpu monitor", "max 700 W", Json::parse(R"({"max_power_w": 700})")});
  return rep;
}

using test::split_csv;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(BenchReport, CsvHasAHeaderAndOneLinePerRow) {
  const auto lines = lines_of(to_csv(report()));
  ASSERT_EQ(lines.size(), 3u);
  const auto header = split_csv(lines[0]);
  EXPECT_EQ(header, csv_columns());
  const std::vector<std::string> want_header{"case",
                                             "origin",
                                             "op",
                                             "M",
                                             "K",
                                             "N",
                                             "dtype",
                                             "gemm_dtype",
                                             "op_signature",
                                             "params_signature",
                                             "kind",
                                             "solution",
                                             "source",
                                             "status",
                                             "iterations",
                                             "avg_latency_us",
                                             "median_latency_us",
                                             "min_latency_us",
                                             "max_latency_us",
                                             "stddev_latency_us",
                                             "tflops",
                                             "memory_mb",
                                             "algo_bandwidth_gb_s",
                                             "bandwidth_utilization_percent",
                                             "flops_utilization_percent",
                                             "speedup_vs_default",
                                             "error"};
  EXPECT_EQ(header, want_header);
  std::map<std::string, std::string> ok, failed;
  const auto a = split_csv(lines[1]);
  const auto b = split_csv(lines[2]);
  ASSERT_EQ(a.size(), header.size());
  ASSERT_EQ(b.size(), header.size());
  for (std::size_t i = 0; i < header.size(); ++i) {
    ok[header[i]] = a[i];
    failed[header[i]] = b[i];
  }
  EXPECT_EQ(ok["case"], "3");
  EXPECT_EQ(ok["origin"], "input_shape_list[1]");
  EXPECT_EQ(ok["M"], "256");
  EXPECT_EQ(ok["dtype"], "float");
  EXPECT_EQ(ok["gemm_dtype"], "float32");
  EXPECT_EQ(ok["params_signature"], "nn_256_256_256_ld_256_256_256");
  EXPECT_EQ(ok["kind"], "tuned");
  EXPECT_EQ(ok["solution"], "Cpu_OpenBLAS");
  EXPECT_EQ(ok["source"], "results");
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["iterations"], "3");
  EXPECT_EQ(ok["avg_latency_us"], "110");
  EXPECT_EQ(ok["tflops"], "0.30504");  // 6 significant digits
  EXPECT_EQ(ok["memory_mb"], "0.786432");
  EXPECT_EQ(ok["algo_bandwidth_gb_s"], "7.14938");
  EXPECT_EQ(ok["bandwidth_utilization_percent"], "71.4938");
  EXPECT_EQ(ok["flops_utilization_percent"], "");  // unknown peak: empty, never 0
  EXPECT_EQ(ok["speedup_vs_default"], "1.25");
  EXPECT_EQ(ok["error"], "");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], "it said \"no\", twice");  // quoted, read back whole
  EXPECT_EQ(failed["avg_latency_us"], "");
  EXPECT_EQ(failed["gemm_dtype"], "");
}

TEST(BenchReport, JsonlIsARunRecordThenUnroundedRows) {
  const auto lines = lines_of(to_jsonl(report()));
  ASSERT_EQ(lines.size(), 3u);
  const Json run = Json::parse(lines[0]);
  EXPECT_EQ(run["record"], "run");
  EXPECT_EQ(run["command"], "gemmtune bench gemm.json");
  EXPECT_EQ(run["cases"], 5);
  EXPECT_EQ(run["cases_run"], 2);
  EXPECT_EQ(run["complete"], false);  // a failed row, and 2 of 5 cases
  EXPECT_TRUE(run["ended_at"].is_null());
  EXPECT_EQ(run["versions"]["GEMMTUNE_VERSION"], "0.1.0");
  EXPECT_EQ(run["peaks"]["memory_bandwidth_gb_s"], 10.0);
  EXPECT_EQ(run["peaks"]["source"], "--peak-bandwidth-gb-s");
  EXPECT_TRUE(run["peaks"]["dense_tflops"].empty());
  EXPECT_EQ(run["tuning"]["seed"], "42");
  EXPECT_EQ(run["measurement"].size(), 2u);
  EXPECT_EQ(run["notes"][0], "a note");
  EXPECT_TRUE(run["units"].contains("tflops"));
  ASSERT_EQ(run["sections"].size(), 2u);
  EXPECT_EQ(run["sections"][0]["title"], "configuration");
  EXPECT_EQ(run["sections"][0]["text"], "[bench]\nkey = 1\n");
  EXPECT_TRUE(run["sections"][0]["data"].is_null());
  EXPECT_EQ(run["sections"][1]["data"]["max_power_w"], 700);

  const Json ok = Json::parse(lines[1]);
  EXPECT_EQ(ok["record"], "result");
  EXPECT_EQ(ok["case"], 3);
  EXPECT_EQ(ok["K"], 256);
  EXPECT_EQ(ok["tflops"].get<double>(), 0.30504029090909091);  // exactly, unrounded
  EXPECT_EQ(ok["algo_bandwidth_gb_s"].get<double>(), 7.1493818181818182);
  EXPECT_TRUE(ok["flops_utilization_percent"].is_null());
  EXPECT_EQ(ok["conditions"], "1 set x 0.75 MiB");
  EXPECT_EQ(ok["arguments"]["input_shapes"][1][0], 256);
  // Every CSV column is a field of the result record.
  for (const auto& column : csv_columns()) EXPECT_TRUE(ok.contains(column)) << column;
  const Json failed = Json::parse(lines[2]);
  EXPECT_EQ(failed["error"], "it said \"no\", twice");
  EXPECT_TRUE(failed["avg_latency_us"].is_null());
  EXPECT_TRUE(failed["speedup_vs_default"].is_null());
}

TEST(BenchReport, FilesAndTheCsvSidecar) {
  EXPECT_EQ(csv_sidecar_path("out/r.csv"), std::filesystem::path("out/r.meta.json"));
  EXPECT_EQ(csv_sidecar_path("r"), std::filesystem::path("r.meta.json"));
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gemmtune_bench_report_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const BenchReport rep = report();
  write_report_files(rep, dir / "sub/r.csv", dir / "r.jsonl");
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(read(dir / "sub/r.csv"), to_csv(rep));
  EXPECT_EQ(read(dir / "r.jsonl"), to_jsonl(rep));
  EXPECT_EQ(Json::parse(read(dir / "sub/r.meta.json")), run_record(rep));
  // Nothing named, nothing written.
  write_report_files(rep, {}, {});
  std::filesystem::remove_all(dir);
}

TEST(BenchReport, TerminalCellsAndSections) {
  const auto header = table_header();
  EXPECT_EQ(header.size(), table_right_aligned().size());
  const auto ok = table_cells(ok_row());
  ASSERT_EQ(ok.size(), header.size());
  EXPECT_EQ(ok[0], "3");
  EXPECT_EQ(ok[1], "256x256x256");
  EXPECT_EQ(ok[3], "tuned");
  EXPECT_EQ(ok[4], "110.00");
  EXPECT_EQ(ok[6], "0.305");
  EXPECT_EQ(ok[9], "71.5%");
  EXPECT_EQ(ok[10], "n/a");  // unknown peak
  EXPECT_EQ(ok[11], "1.25x");
  EXPECT_EQ(ok[12], "Cpu_OpenBLAS (results)");
  const auto failed = table_cells(failed_row());
  ASSERT_EQ(failed.size(), header.size());
  EXPECT_EQ(failed[4], "-");
  EXPECT_EQ(failed.back(), "failed: it said \"no\", twice");
  const std::string sections = format_sections(report());
  EXPECT_EQ(sections,
            "Notes:\n  - a note\n\nconfiguration:\n[bench]\nkey = 1\n\ngpu monitor:\nmax 700 W\n");
  const std::string preamble = format_preamble(report());
  EXPECT_NE(preamble.find("Units: latency in µs; TFLOPS = 2·M·N·K / average latency / 1e12"),
            std::string::npos)
      << preamble;
  EXPECT_NE(preamble.find("memory bandwidth 10 GB/s; dense TFLOPS n/a"), std::string::npos)
      << preamble;
}

}  // namespace
}  // namespace gemmtune::bench
