// Per-shape TFLOPS and the across-shape summary, checked against numbers worked by hand and
// against a real mamf-finder.py output (tests/fixtures/mamf_quick_h200.txt).
#include "drivers/mamf/sweep_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

namespace gemmtune::mamf {
namespace {

TEST(SweepStats, TflopsFromSamplesAsMamfFinderComputesThem) {
  const double flops = 2e12;  // 2 TFLOP per iteration
  const std::vector<double> ms{4, 1, 3, 2};
  const Tflops t = tflops_of(flops, ms);
  EXPECT_DOUBLE_EQ(t.mean, 2e12 / 2.5e-3 / 1e12);    // mean time 2.5 ms
  EXPECT_DOUBLE_EQ(t.median, 2e12 / 2.5e-3 / 1e12);  // numpy median of an even count
  EXPECT_DOUBLE_EQ(t.max, 2e12 / 1e-3 / 1e12);       // the fastest sample
  const Tflops odd = tflops_of(flops, std::vector<double>{1, 10, 2});
  EXPECT_DOUBLE_EQ(odd.median, 1000.0);
  const Tflops none = tflops_of(flops, std::vector<double>{});
  EXPECT_EQ(none.mean, 0);
}

TEST(SweepStats, BestByEachMeasureFirstOneWinsTies) {
  SweepSummary s;
  s.add({{1, 1, 1}, {10, 12, 20}, {}, "Default"});
  s.add({{2, 1, 1}, {11, 12, 15}, {}, "Default"});  // ties the median: the first stays
  s.add({{3, 1, 1}, {9, 13, 16}, {}, "Default"});
  EXPECT_EQ(s.best().mean, 11);
  EXPECT_EQ(s.best_mean_shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(s.best().median, 13);
  EXPECT_EQ(s.best_median_shape(), (Shape{3, 1, 1}));
  EXPECT_EQ(s.best().max, 20);
  EXPECT_EQ(s.best_max_shape(), (Shape{1, 1, 1}));
  EXPECT_DOUBLE_EQ(s.arithmetic_mean(), 10.0);
  EXPECT_NEAR(s.geometric_mean(), std::cbrt(10.0 * 11 * 9), 1e-12);
}

TEST(SweepStats, EmptyAndZeroSummaries) {
  SweepSummary s;
  EXPECT_EQ(s.arithmetic_mean(), 0);
  EXPECT_EQ(s.geometric_mean(), 0);
  s.add({{1, 1, 1}, {0, 0, 0}, {}, "Default"});
  EXPECT_EQ(s.geometric_mean(), 0);
}

// Feeds the per-shape lines of a real mamf-finder run and compares with the summary it printed.
TEST(SweepStats, ReproducesMamfFindersSummaryOfARealRun) {
  std::ifstream in(GEMMTUNE_TEST_FIXTURES "/mamf_quick_h200.txt");
  ASSERT_TRUE(in);
  const std::regex line(R"(^\s+\d+ \|\s+([\d.]+)\(mean\)\s+([\d.]+)\(median\)\s+([\d.]+)\(max\) @ (\d+)x(\d+)x(\d+)\s+\|)");
  SweepSummary s;
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_search(text, m, line)) continue;
    s.add({{std::stoll(m[4]), std::stoll(m[5]), std::stoll(m[6])},
           {std::stod(m[1]), std::stod(m[2]), std::stod(m[3])}, {}, "Default"});
  }
  ASSERT_EQ(s.shapes(), 79);
  EXPECT_DOUBLE_EQ(s.best().mean, 757.3);
  EXPECT_EQ(s.best_mean_shape().text(), "2048x4096x4096");
  EXPECT_DOUBLE_EQ(s.best().median, 757.5);
  EXPECT_DOUBLE_EQ(s.best().max, 769.4);
  // The file's per-shape numbers are rounded to 0.1, so the means agree to within 0.05.
  EXPECT_NEAR(s.arithmetic_mean(), 690.6, 0.05);
  EXPECT_NEAR(s.geometric_mean(), 688.5, 0.05);
}

}  // namespace
}  // namespace gemmtune::mamf
