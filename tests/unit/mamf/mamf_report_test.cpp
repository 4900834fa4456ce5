// The report keeps mamf-finder.py's layout: shape lines and the summary are byte for byte what
// mamf-finder prints for the same numbers (tests/fixtures/mamf_quick_h200.txt is a real run).
#include "drivers/mamf/mamf_report.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace gemmtune::mamf {
namespace {

std::string fixture() {
  std::ifstream in(GEMMTUNE_TEST_FIXTURES "/mamf_quick_h200.txt");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture's shapes as results, and the fixture's text.
SweepSummary fixture_summary(std::vector<std::string>* lines = nullptr) {
  std::stringstream in(fixture());
  const std::regex line(
      R"(^\s+\d+ \|\s+([\d.]+)\(mean\)\s+([\d.]+)\(median\)\s+([\d.]+)\(max\) @ (\d+)x(\d+)x(\d+)\s+\|)");
  SweepSummary s;
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_search(text, m, line)) continue;
    s.add({{std::stoll(m[4]), std::stoll(m[5]), std::stoll(m[6])},
           {std::stod(m[1]), std::stod(m[2]), std::stod(m[3])},
           {},
           "Default"});
    if (lines) lines->push_back(text + "\n");
  }
  return s;
}

TEST(MamfReport, ShapeLinesAreMamfFindersByteForByte) {
  std::vector<std::string> lines;
  const SweepSummary all = fixture_summary(&lines);
  ASSERT_EQ(lines.size(), 79u);
  SweepSummary running;
  for (int i = 0; i < all.shapes(); ++i) {
    running.add(all.results()[i]);
    ASSERT_EQ(format_shape_line(i + 1, all.results()[i], running), lines[i]) << "shape " << i + 1;
  }
}

// Nothing measured (interrupted at once, every shape too large): no best shape is invented, and
// the notes that say why are still there.
TEST(MamfReport, ASummaryOfNoShapeNamesNone) {
  const SweepSummary none;
  SummaryInfo info;
  info.baseline = &none;
  info.range_info = "m=[2048] | n=[2048] | k=[2048]";
  info.planned_shapes = 1;
  info.interrupted = true;
  info.notes = {"2048x2048x2048: not measured: interrupted"};
  const std::string out = format_summary(info);
  EXPECT_NE(out.find("Tried 0 shapes => the best outcomes were:\nnone: no shape was measured\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("0x0x0"), std::string::npos) << out;
  EXPECT_NE(out.find("- 2048x2048x2048: not measured: interrupted"), std::string::npos) << out;
  EXPECT_NE(out.find("Elapsed time:"), std::string::npos) << out;
}

TEST(MamfReport, SummaryIsMamfFindersForTheSameNumbers) {
  const SweepSummary s = fixture_summary();
  SummaryInfo info;
  info.baseline = &s;
  info.range_info = "m=[0, 20480, 256] | n=[4096] | k=[4096]";
  info.planned_shapes = 79;
  info.elapsed_seconds = 37.4;
  const std::string out = format_summary(info);
  const std::string expected_best =
      "Tried 79 shapes => the best outcomes were:\n"
      "mean:   757.3 TFLOPS @ 2048x4096x4096 (MxNxK)\n"
      "median: 757.5 TFLOPS @ 2048x4096x4096 (MxNxK)\n"
      "max:    769.4 TFLOPS @ 2048x4096x4096 (MxNxK)\n\n"
      "Across 79 shapes in range: m=[0, 20480, 256] | n=[4096] | k=[4096] in this run:\n";
  EXPECT_NE(out.find(expected_best), std::string::npos) << out;
  EXPECT_NE(fixture().find(expected_best), std::string::npos);  // the same text as the real run
  EXPECT_NE(out.find("arithmetic mean: 690.6 TFLOPS\ngeometric mean:  688.5 TFLOPS\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Legend: TFLOPS = 10**12 FLOPS\nElapsed time: 0:00:37\n"), std::string::npos);
  EXPECT_EQ(out.find("Interrupted"), std::string::npos);
}

TEST(MamfReport, ExtrasFollowMamfFindersLines) {
  const SweepSummary s = fixture_summary();
  SweepSummary tuned;
  for (auto r : s.results()) {
    r.tflops.mean *= 1.03, r.tflops.median *= 1.03, r.tflops.max *= 1.03;
    r.solution = "Gemm_Cublaslt_id_1";
    tuned.add(r);
  }
  SummaryInfo info;
  info.baseline = &s;
  info.tuned = &tuned;
  info.tuned_label = "tuned";
  info.dtype = "bfloat16";
  info.efficiency = Efficiency{989.4, "NVIDIA H200 SXM spec"};
  info.sustained = SustainedResult{{2048, 4096, 4096}, "Default", 10.0, 740.0, 735.0, 757.3};
  info.interrupted = true;
  info.planned_shapes = 100;
  info.notes = {"4x4x4: not measured: because"};
  const std::string out = format_summary(info);
  EXPECT_NE(out.find("Interrupted: 79 of 100 shapes were measured"), std::string::npos) << out;
  EXPECT_NE(out.find("With the tuned solution per shape (Default above):\nmean:   780.0 TFLOPS"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("best mean +3.0% over Default's best mean"), std::string::npos) << out;
  EXPECT_NE(out.find("Efficiency against the 989.4 TFLOPS dense bfloat16 peak (NVIDIA H200 SXM "
                     "spec):\nbest mean: 76.5% (Default), 78.8% (tuned)"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find("Sustained over 10.0 s at 2048x4096x4096 (Default): 740.0 TFLOPS, 97.7% of its "
               "burst 757.3 TFLOPS; slowest 1 s window 735.0 TFLOPS"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("- 4x4x4: not measured: because"), std::string::npos);
}

TEST(MamfReport, TunedLineFollowsTheShapeLineLayout) {
  SweepSummary s;
  const ShapeResult base{{256, 4096, 4096}, {360.8, 363.5, 384.0}, {}, "Default"};
  const ShapeResult tuned{{256, 4096, 4096}, {370.0, 371.0, 390.0}, {}, "Gemm_Cublaslt_id_7"};
  s.add(tuned);
  EXPECT_EQ(format_tuned_line(tuned, base, s),
            " tuned |  370.0(mean)  371.0(median)  390.0(max) @ 256x4096x4096        | best:  "
            "370.0(mean)  371.0(median)  390.0(max) TFLOPS | +2.5% Gemm_Cublaslt_id_7\n");
}

TEST(MamfReport, HeaderHasMamfFindersSections) {
  HeaderInfo h;
  h.started_at = "2026-11-21 10:55:06";
  h.command_line = "gemmtune mamf --m_range 0 20480 256 --n 4096 --k 4096";
  h.dtype = "bfloat16";
  h.platform = "Linux vm 6.1 #1 x86_64";
  h.device = "cuda device 0: name='NVIDIA H200'";
  h.versions = {{"gemmtune", "0.1.0"}, {"CUBLAS_VERSION", "130100"}};
  h.measurement = {"100 timed iterations"};
  h.notes = "my notes";
  const std::string out = format_header(h);
  for (const char* s :
       {"\nBenchmark started on 2026-11-21 10:55:06\n\n** Command line:\ngemmtune mamf",
        "** Dtype: bfloat16\n", "** Platform/Device info:\n- Linux vm",
        "** Critical software versions:\n- gemmtune=0.1.0\n- CUBLAS_VERSION=130100\n",
        "** Additional notes:\n- benchmark version: 2\n", "my notes\n",
        "\n--------------------------------------------------------------------------------\n"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n---\n" << out;
  }
  // As mamf-finder.py ends its header (tests/fixtures/mamf_quick_h200.txt): the rule, then two
  // blank lines.
  EXPECT_TRUE(out.ends_with(std::string(80, '-') + "\n\n\n")) << out;
}

TEST(MamfReport, WarmupLineSaysHowLongItTook) {
  WarmupResult w;
  w.settled = true;
  w.seconds = 1.23;
  w.windows = 6;
  w.spread_percent = 0.4;
  w.last_tflops = 700;
  EXPECT_NE(format_warmup(w).find("settled after 1.2 s (6 windows"), std::string::npos);
  w.settled = false;
  EXPECT_NE(format_warmup(w).find("not settled after 1.2 s"), std::string::npos);
  w.skipped = true;
  EXPECT_NE(format_warmup(w).find("skipped"), std::string::npos);
}

TEST(MamfReport, ElapsedLikePythonsTimedelta) {
  EXPECT_EQ(format_elapsed(0.4), "0:00:00");
  EXPECT_EQ(format_elapsed(37.9), "0:00:37");
  EXPECT_EQ(format_elapsed(3723), "1:02:03");
  EXPECT_EQ(format_elapsed(86399), "23:59:59");
  EXPECT_EQ(format_elapsed(90000), "1 day, 1:00:00");  // as Python's str(timedelta)
  EXPECT_EQ(format_elapsed(2 * 86400 + 61), "2 days, 0:01:01");
}

}  // namespace
}  // namespace gemmtune::mamf
