// Whole (small) MAMF runs on the CPU backend: the report's lines in order, the tuned series, the
// results lookup, the store, the plot, and a stop request.
#include "drivers/mamf/mamf_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "db/results_store.hpp"
#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

class Capture final : public MamfObserver {
 public:
  void text(std::string_view t) override { out += t; }
  void progress(const MamfProgress& p) override {
    progress_calls++;
    last = p;
  }
  void warning(std::string_view w) override { warnings.emplace_back(w); }
  std::string out;
  int progress_calls = 0;
  MamfProgress last;
  std::vector<std::string> warnings;
};

MamfOptions small() {
  MamfOptions o;
  o.m = {"m", {}, {0, 97, 32}};  // 32, 64, 96
  o.n = {"n", {48}, {}};
  o.k = {"k", {40}, {}};
  o.dtype = DType::Float32;
  o.backend = BackendKind::Cpu;
  o.bench.iterations = 5;
  o.bench.warmup_iterations = 2;
  o.warmup.max_seconds = 0.2;
  o.warmup.window_ms = 20;
  o.warmup.min_windows = 3;
  return o;
}

std::filesystem::path temp(const std::string& name) {
  auto p = std::filesystem::temp_directory_path() /
           ("gemmtune_mamf_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove(p);
  return p;
}

TEST(MamfRun, ReportsEveryShapeAndTheSummaryInMamfFindersLayout) {
  Capture c;
  const MamfResult r = run_mamf(small(), c, "gemmtune mamf --test");
  EXPECT_EQ(r.planned_shapes, 3);
  EXPECT_EQ(r.baseline.shapes(), 3);
  EXPECT_FALSE(r.has_tuned);
  EXPECT_FALSE(r.interrupted);
  const std::regex line(
      R"(\n     [123] \|\s+[\d.]+\(mean\)\s+[\d.]+\(median\)\s+[\d.]+\(max\) @ (32|64|96)x48x40\s+\| best: )");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(c.out.begin(), c.out.end(), line), std::sregex_iterator()),
      3)
      << c.out;
  for (const char* s : {"** Command line:\ngemmtune mamf --test", "** Dtype: float32",
                        "Warming up the accelerator until timings settle ... ",
                        "Tried 3 shapes => the best outcomes were:",
                        "Across 3 shapes in range: m=[0, 97, 32] | n=[48] | k=[40] in this run:",
                        "arithmetic mean: ", "geometric mean:  ", "Elapsed time: 0:00:"}) {
    EXPECT_NE(c.out.find(s), std::string::npos) << s << "\n" << c.out;
  }
  // Header, then warm-up, then shapes, then summary.
  EXPECT_LT(c.out.find("** Command line"), c.out.find("Warming up"));
  EXPECT_LT(c.out.find("Warming up"), c.out.find("     1 |"));
  EXPECT_LT(c.out.find("     3 |"), c.out.find("Tried 3 shapes"));
  EXPECT_EQ(c.last.index, 3);
  EXPECT_DOUBLE_EQ(c.last.flops_done, c.last.flops_total);
  EXPECT_GT(c.last.best_mean_tflops, 0);
  EXPECT_EQ(r.baseline.best().mean, c.last.best_mean_tflops);
}

TEST(MamfRun, TunedSeriesStoreAndPlot) {
  MamfOptions o = small();
  o.tuned = true;
  o.tuner.timing.max_tuning_duration_ms = 2;
  o.store_file = temp("tuned.db").string();
  o.plot_file = temp("tuned.svg").string();
  o.peak_tflops = 1.0;
  Capture c;
  const MamfResult r = run_mamf(o, c, "gemmtune mamf --tuned");
  EXPECT_TRUE(r.has_tuned);
  EXPECT_EQ(r.tuned.shapes(), 3);
  EXPECT_NE(c.out.find(" tuned |"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("With the tuned solution per shape (Default above):"), std::string::npos);
  EXPECT_NE(c.out.find("Efficiency against the 1.0 TFLOPS dense float32 peak (--peak-tflops)"),
            std::string::npos)
      << c.out;
  auto store = open_results_store(o.store_file);
  const auto tables = store->load();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].entries.size(), 3u);
  std::ifstream svg(o.plot_file);
  std::stringstream text;
  text << svg.rdbuf();
  EXPECT_NE(text.str().find("<polyline"), std::string::npos);
  EXPECT_NE(text.str().find("</svg>"), std::string::npos);
  std::filesystem::remove(o.store_file);
  std::filesystem::remove(o.plot_file);
}

TEST(MamfRun, LooksSolutionsUpInAResultsFile) {
  const auto file = temp("lookup.csv");
  {
    std::ofstream out(file);
    out << "Validator,GEMMTUNE_VERSION,0.1.0\n"
        << "GemmTunableOp_float_TN,tn_48_64_40_ld_40_40_48,Cpu_Blocked_mc_64_kc_256_nc_256,0.01\n"
        << "GemmTunableOp_float_TN,tn_48_96_40_ld_40_40_48,No_Such_Solution,0.01\n";
  }
  MamfOptions o = small();
  o.results_file = file.string();
  Capture c;
  const MamfResult r = run_mamf(o, c, "gemmtune mamf --results");
  EXPECT_TRUE(r.has_tuned);
  ASSERT_EQ(r.tuned.shapes(), 3);
  EXPECT_EQ(r.tuned.results()[0].solution, "Default");  // 32: not in the file
  EXPECT_EQ(r.tuned.results()[1].solution, "Cpu_Blocked_mc_64_kc_256_nc_256");
  EXPECT_EQ(r.tuned.results()[2].solution, "Default");  // 96: a name that cannot run here
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_NE(c.warnings[0].find("No_Such_Solution"), std::string::npos);
  // The shape the file lacks is named, so its Default is not read as the file's choice.
  EXPECT_EQ(c.warnings[1], file.string() +
                               ": no entry for 1 shape(s), measured with Default in the looked-up "
                               "column (add --tuned to tune them): 32x48x40");
  EXPECT_EQ(r.notes.back(), c.warnings[1]);
  std::filesystem::remove(file);
}

// A results file measured elsewhere (a validator both sides have differs) is still used where
// its solutions run here, and the run says so, as bench does.
TEST(MamfRun, AResultsFileMeasuredElsewhereIsSaidToBe) {
  const auto file = temp("elsewhere.csv");
  {
    std::ofstream out(file);
    out << "Validator,GEMMTUNE_VERSION,0.1.0\nValidator,GEMMTUNE_BACKEND,cuda\n"
        << "GemmTunableOp_float_TN,tn_48_64_40_ld_40_40_48,Cpu_Blocked_mc_64_kc_256_nc_256,0.01\n";
  }
  MamfOptions o = small();
  o.results_file = file.string();
  Capture c;
  const MamfResult r = run_mamf(o, c, "gemmtune mamf --results");
  EXPECT_EQ(r.tuned.results()[1].solution, "Cpu_Blocked_mc_64_kc_256_nc_256");
  ASSERT_EQ(c.warnings.size(), 2u);  // and the two shapes it lacks
  EXPECT_NE(c.warnings[0].find("measured in another environment"), std::string::npos)
      << c.warnings[0];
  EXPECT_NE(c.warnings[1].find("2 shape(s)"), std::string::npos) << c.warnings[1];
  std::filesystem::remove(file);
}

TEST(MamfRun, StopRequestEndsTheSweepWithASummary) {
  MamfOptions o = small();
  o.m = {"m", {}, {0, 3200, 32}};  // 99 shapes
  class StopAfterTwo final : public MamfObserver {
   public:
    void text(std::string_view t) override {
      out += t;
      if (t.find("     2 |") != std::string_view::npos) request_mamf_stop();
    }
    std::string out;
  } c;
  const MamfResult r = run_mamf(o, c, "gemmtune mamf");
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.baseline.shapes(), 2);
  EXPECT_NE(c.out.find("Interrupted: 2 of 99 shapes were measured"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("Tried 2 shapes"), std::string::npos);
}

// A stop within --sustained's window cuts the run short as a stop within the sweep does: it had
// ended "ok", exit 0, with a shorter window than asked for and nothing said.
TEST(MamfRun, AStopWithinTheSustainedWindowIsAnInterruption) {
  MamfOptions o = small();
  o.sustained_seconds = 30;
  class StopWhenSustained final : public MamfObserver {
   public:
    void text(std::string_view t) override { out += t; }
    void progress(const MamfProgress& p) override {
      if (p.phase == "sustained") request_mamf_stop();
    }
    std::string out;
  } c;
  const MamfResult r = run_mamf(o, c, "gemmtune mamf --sustained 30");
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.baseline.shapes(), 3);
  EXPECT_NE(c.out.find("Interrupted: 3 of 3 shapes were measured, and the sustained run was cut "
                       "short"),
            std::string::npos)
      << c.out;
}

TEST(MamfRun, BadOptionsFailBeforeMeasuring) {
  MamfOptions o = small();
  o.m = {"m", {}, {0, 10}};
  Capture c;
  EXPECT_THROW(run_mamf(o, c, "x"), InputError);
  EXPECT_TRUE(c.out.empty());
  o = small();
  o.results_file = "/nonexistent/results.csv";
  EXPECT_THROW(run_mamf(o, c, "x"), InputError);
}

// A misspelt --results is an error naming it, and no empty database is left in its place.
TEST(MamfRun, AMissingResultsFileIsAnErrorAndCreatesNothing) {
  const auto file = temp("typo.db");
  MamfOptions o = small();
  o.results_file = file.string();
  Capture c;
  try {
    run_mamf(o, c, "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--results " + file.string()), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

// --plot's directory is made before the sweep (as --output_file's is), and one that cannot be
// made is an error before anything is measured.
TEST(MamfRun, PlotDirectoryIsMadeOrRefusedBeforeTheSweep) {
  const auto dir = temp("plotdir");
  MamfOptions o = small();
  o.warmup.max_seconds = 0;
  o.plot_file = (dir / "sub" / "p.svg").string();
  Capture c;
  run_mamf(o, c, "x");
  EXPECT_TRUE(std::filesystem::exists(o.plot_file));
  std::filesystem::remove_all(dir);

  // A directory that cannot be made, and one that exists but takes no new file (not even as root,
  // whom access(2) lets write anywhere).
  for (const char* file : {"/proc/no/such/dir/p.svg", "/proc/p.svg"}) {
    o.plot_file = file;
    Capture refused;
    try {
      run_mamf(o, refused, "x");
      ADD_FAILURE() << "no error for " << file;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--plot"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(refused.out.empty()) << file;
  }
}

// A first shape that does not fit is skipped with the same note as a later one, with or without
// the warm-up (which then runs on the first shape that fits).
TEST(MamfRun, AFirstShapeThatDoesNotFitIsSkippedWithANote) {
  for (const double warmup : {0.0, 0.2}) {
    MamfOptions o = small();
    o.warmup.max_seconds = warmup;
    o.m = {"m", {kMaxDimension, 32}, {}};  // A alone: 2^31 × 40 floats, 320 GiB
    Capture c;
    const MamfResult r = run_mamf(o, c, "x");
    EXPECT_EQ(r.planned_shapes, 2);
    EXPECT_EQ(r.baseline.shapes(), 1) << warmup;
    ASSERT_EQ(c.warnings.size(), 1u) << warmup;
    EXPECT_NE(c.warnings[0].find("not measured"), std::string::npos) << c.warnings[0];
    EXPECT_EQ(r.warmup.skipped, warmup == 0);
  }
}

// A shape too large to describe is not the dtype's fault, nor a shape to try: it is refused
// before anything runs, naming the option.
TEST(MamfRun, AnOversizedShapeIsAUsageErrorNamingTheOption) {
  MamfOptions o = small();
  o.warmup.max_seconds = 0;
  o.m = {"m", {std::numeric_limits<std::int64_t>::max()}, {}};
  Capture c;
  try {
    (void)run_mamf(o, c, "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--m: 9223372036854775807 is more than 2147483647", 0),
              0u)
        << e.what();
  }
  EXPECT_TRUE(c.warnings.empty());
}

}  // namespace
}  // namespace gemmtune::mamf
