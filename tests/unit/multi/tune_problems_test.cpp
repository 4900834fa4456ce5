// What a tuning run checks on its output before it tunes (add_tuned_signatures), through
// run_tune on the CPU backend: an output that holds nothing (blank, a BOM alone) is tuned into,
// as a missing one is, by the same rule as the first save; one that cannot be written is bad
// input naming it before any problem is measured.
#include "drivers/tune_problems.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "drivers/tune_run.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TuneOptions options(const std::filesystem::path& output) {
  TuneOptions o;
  o.problems = {"GemmTunableOp_float_NN,nn_8_16_16_ld_8_16_8",
                "GemmTunableOp_float_NN,nn_16_16_16_ld_16_16_16"};
  o.output = output.string();
  o.backend = BackendKind::Cpu;
  o.tuner.timing.max_tuning_duration_ms = 1;
  o.tuner.timing.rotating_buffer_mb = 0;
  return o;
}

// Counts the problems the run started to measure: none may start when the output is refused.
struct CountingObserver : TuneObserver {
  int problems = 0;
  void on_problem(const UntunedEntry&, std::size_t, std::size_t) override { ++problems; }
};

TuneSummary run(const TuneOptions& o, TuneObserver& observer) {
  Diagnostics diagnostics;
  return run_tune(o, diagnostics, observer, "tune_problems_test");
}

TEST(TuneProblems, AnOutputThatHoldsNothingIsTunedInto) {
  testing::TempDir dir;
  for (const std::string blank : {"\n", "\xEF\xBB\xBF", "\xEF\xBB\xBF\r\n  \n"}) {
    const auto path = dir / "tb.csv";
    testing::write_text(path, blank);
    CountingObserver observer;
    TuneSummary summary;
    ASSERT_NO_THROW(summary = run(options(path), observer)) << ::testing::PrintToString(blank);
    EXPECT_EQ(summary.tuned.size(), 2u);
    const auto tables = open_results_store(path)->load();
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_FALSE(tables[0].environment.empty());
    EXPECT_EQ(tables[0].entries.size(), 2u);
  }
}

TEST(TuneProblems, AnOutputThatCannotBeWrittenIsRefusedBeforeTuning) {
  testing::TempDir dir;
  for (const char* name : {"nodir/out.csv", "nodir/out.db"}) {
    CountingObserver observer;
    try {
      run(options(dir / name), observer);
      FAIL() << "expected InputError for " << name;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name), std::string::npos) << what;
      EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
    }
    EXPECT_EQ(observer.problems, 0) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "nodir"));
}

// A results file this user may not write (in a directory that takes new files) is refused
// before any problem is measured, not after the first (only where permissions hold: root writes
// anyway).
TEST(TuneProblems, AnOutputFileThatCannotBeWrittenIsRefusedBeforeTuning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
  testing::TempDir dir;
  for (const char* name : {"ro.csv", "ro.db"}) {
    const auto path = dir / name;
    {
      CountingObserver observer;
      TuneOptions o = options(path);
      o.problems.resize(1);
      run(o, observer);
    }
    std::filesystem::permissions(path, std::filesystem::perms::owner_read);
    CountingObserver observer;
    try {
      run(options(path), observer);
      FAIL() << "expected InputError for " << name;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be written"), std::string::npos) << e.what();
    }
    EXPECT_EQ(observer.problems, 0) << name;
  }
}

// A file with bad lines and no validators is not empty: refused before tuning, left as it was.
// It is bad input (exit 3), not results of another environment (exit 4).
TEST(TuneProblems, AnOutputWithOnlyBadLinesIsRefusedBeforeTuning) {
  testing::TempDir dir;
  const auto path = dir / "bad.csv";
  const std::string bad = "GemmTunableOp_float_NN,nn_8_16_16_ld_8_16_8,Default,1e999\n";
  testing::write_text(path, bad);
  CountingObserver observer;
  EXPECT_THROW(run(options(path), observer), InputError);
  EXPECT_EQ(observer.problems, 0);
  EXPECT_EQ(testing::read_text(path), bad);
}

TEST(TuneProblems, LinesOfTheOutputItCannotReadAreWarnedAboutAndKept) {
  testing::TempDir dir;
  const auto path = dir / "out.csv";
  {
    CountingObserver observer;
    run(options(path), observer);
  }
  // Spoil the first entry's time, as a hand edit might.
  std::string text = testing::read_text(path);
  const auto entry = text.find("GemmTunableOp_float_NN,nn_8_16_16_ld_8_16_8,");
  ASSERT_NE(entry, std::string::npos);
  const auto time = text.rfind(',', text.find('\n', entry));
  text.replace(time + 1, text.find('\n', entry) - time - 1, "fast");
  testing::write_text(path, text);

  Diagnostics diagnostics;
  CountingObserver observer;
  const TuneSummary summary = run_tune(options(path), diagnostics, observer, "tune_problems_test");
  EXPECT_EQ(summary.tuned.size(), 1u);  // the spoilt one again
  EXPECT_EQ(diagnostics.error_count(), 0u);
  ASSERT_EQ(diagnostics.warning_count(), 1u);
  EXPECT_NE(diagnostics.format_all().find("is measured again"), std::string::npos)
      << diagnostics.format_all();
  EXPECT_NE(testing::read_text(path).find(",fast\n"), std::string::npos);  // kept as it was
}

}  // namespace
}  // namespace gemmtune
