// Online tuning: a problem met for the first time is tuned once, even by several threads at once,
// its winner is appended to the results file at once, and later calls dispatch it.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {
namespace {

TEST(OnlineTuning, TunesOnceUnderConcurrentCallersAndAppendsAtOnce) {
  TempDir dir;
  Counts counts;
  Log log;
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);
  FloatGemm g(96, 96, 96);

  std::atomic<bool> go{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::vector<float> c(g.c.size());
      while (!go.load()) std::this_thread::yield();
      if (!ctx.gemm(g.problem, g.a.data(), g.b.data(), c.data()).ok) ++failures;
    });
  }
  go.store(true);
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(counts.enumerations_of(g.problem), 1) << "tuned exactly once";
  // Appended at once: the file holds the winner before the Context goes away.
  EXPECT_EQ(lines_containing(dir / "results.csv", g.problem.params_signature()), 1u);
  // Which solution won is not this test's point (the seven other callers run Default on the same
  // cores while the tuning measures, and under a sanitizer's load that once made Default keep its
  // place): whichever did is what the file holds and what later calls run.
  const std::string winner(ctx.lookup(g.problem).solution);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned);
  EXPECT_EQ(lines_containing(dir / "results.csv", winner), 1u) << log.all();

  counts.reset();
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of(winner), 1);
  EXPECT_EQ(counts.enumerations_of(g.problem), 0) << "not tuned again";
  EXPECT_LT(g.max_error(), 1e-3);

  // A new Context loads what the first one tuned.
  Options o2 = test_options(dir, counts, log);
  Context again(o2);
  EXPECT_EQ(again.lookup(g.problem).solution, winner);
  EXPECT_EQ(again.lookup(g.problem).source, Source::Tuned);
}

TEST(OnlineTuning, TuningCanBeSwitchedOnFromCode) {
  TempDir dir;
  Counts counts;
  Log log;
  Context ctx(test_options(dir, counts, log));
  FloatGemm g(64, 64, 64);
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Untuned);
  ctx.tuning_enable();
  ctx.set_max_tuning_iterations(5);
  EXPECT_EQ(ctx.max_tuning_iterations(), 5);
  ctx.set_max_tuning_duration(10);
  EXPECT_EQ(ctx.max_tuning_duration(), 10);
  ASSERT_TRUE(g.run(ctx).ok);
  // Tuned; which solution won is not this test's point (in a Debug build the CPU Default can be
  // as fast as the test solution and keep its place).
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned) << log.all();
  EXPECT_EQ(counts.enumerations_of(g.problem), 1);
}

TEST(OnlineTuning, TunesAWholeUntunedFileFromCode) {
  TempDir dir;
  Counts counts;
  Log log;
  Context ctx(test_options(dir, counts, log));
  FloatGemm a(64, 32, 32), b(48, 48, 16);
  write_text(dir / "in.csv", "GemmTunableOp_float_NN," + a.problem.params_signature() + "\n" +
                                 "GemmTunableOp_float_NN," + b.problem.params_signature() +
                                 "\nGemmTunableOp_float_NN," + a.problem.params_signature() +
                                 "\nnot a line\n");
  const TuneFileReport r = ctx.tune_file((dir / "in.csv").string());
  EXPECT_EQ(r.requested, 2u);
  EXPECT_EQ(r.tuned, 2u);
  EXPECT_EQ(r.bad_lines, 1u);
  EXPECT_TRUE(r.failed.empty());
  EXPECT_EQ(ctx.lookup(a.problem).source, Source::Tuned);
  EXPECT_EQ(ctx.results().size(), 2u);
  const TuneFileReport again = ctx.tune_file((dir / "in.csv").string());
  EXPECT_EQ(again.already_tuned, 2u);
  EXPECT_EQ(again.tuned, 0u);
  // A file that cannot be read is the file's error, not a problem that failed.
  const TuneFileReport missing = ctx.tune_file((dir / "no_such.csv").string());
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(missing.failed.empty());
  EXPECT_NE(missing.file_error.find("no_such.csv"), std::string::npos) << missing.file_error;
}

TEST(OnlineTuning, WriteFileAndReadFileRoundTrip) {
  TempDir dir;
  Counts counts;
  Log log;
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  FloatGemm g(64, 64, 32);
  std::string winner;
  {
    Context ctx(o);
    ASSERT_TRUE(g.run(ctx).ok);
    winner = ctx.lookup(g.problem).solution;
    ctx.write_file((dir / "copy.db").string());
  }
  Options o2 = test_options(dir, counts, log);
  o2.filename = (dir / "elsewhere.csv").string();
  Context ctx(o2);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Untuned);
  const LoadReport r = ctx.read_file((dir / "copy.db").string());
  EXPECT_TRUE(r.accepted) << r.message;
  EXPECT_EQ(r.entries, 1u);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned);
  EXPECT_EQ(ctx.lookup(g.problem).solution, winner);
}

TEST(OnlineTuning, WriteFileOnExit) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm g(32, 32, 32);
  write_text(dir / "src.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                  g.problem.params_signature() + ",Test_Fast,0.01\n");
  {
    Options o = test_options(dir, counts, log);
    o.filename = (dir / "src.csv").string();
    Context ctx(o);
    ctx.set_filename((dir / "out%d.csv").string(), true);
    EXPECT_EQ(ctx.filename(), (dir / "out0.csv").string());
    ctx.write_file_on_exit(true);
  }
  EXPECT_EQ(lines_containing(dir / "out0.csv", g.problem.params_signature()), 1u);
}

// A result the Context only loaded gives way to what the file holds now: `db merge` put a faster
// one there while the application ran, and writing on exit must not put the stale one back.
TEST(OnlineTuning, WriteFileKeepsANewerResultForAProblemTheContextOnlyLoaded) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm loaded(32, 32, 32), tuned(48, 48, 48);
  const std::string op = "GemmTunableOp_float_NN,";
  write_text(dir / "results.csv", validator_lines() + op + loaded.problem.params_signature() +
                                      ",Default,40\n" + op + tuned.problem.params_signature() +
                                      ",Default,9.5\n");
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);
  ASSERT_EQ(ctx.load_report().entries, 2u) << ctx.load_report().message;
  write_text(dir / "results.csv", validator_lines() + op + loaded.problem.params_signature() +
                                      ",Test_Fast,0.5\n" + op + tuned.problem.params_signature() +
                                      ",Default,9.5\n");
  ctx.write_file();
  const std::string text = read_text(dir / "results.csv");
  EXPECT_EQ(
      lines_containing(dir / "results.csv", loaded.problem.params_signature() + ",Test_Fast,0.5"),
      1u)
      << text;
  EXPECT_EQ(lines_containing(dir / "results.csv", loaded.problem.params_signature()), 1u) << text;
}

// An application's provider may throw anything. A throw that is no std::exception is that
// provider's failure, as a std::exception is: the others' candidates are tuned. (It had left the
// problem marked as being tuned, which every later call then waited on in vain.)
TEST(OnlineTuning, AProviderThatThrowsANonStandardExceptionFailsAlone) {
  class ThrowingProvider final : public SolutionProvider {
   public:
    std::string_view name() const override { return "throws"; }
    std::string_view backend() const override { return "cpu"; }
    std::vector<std::unique_ptr<Solution>> enumerate(const Problem&,
                                                     const SearchOptions&) override {
      throw 42;
    }
    std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override {
      return nullptr;
    }
  };
  TempDir dir;
  Counts counts;
  Log log;
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  o.providers.push_back(std::make_shared<ThrowingProvider>());
  Context ctx(o);
  FloatGemm g(24, 16, 8);
  for (int call = 0; call < 2; ++call) {
    const RunStatus status = g.run(ctx);
    ASSERT_TRUE(status.ok) << status.error;
    EXPECT_LT(g.max_error(), 1e-4);
  }
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned) << log.all();
  EXPECT_EQ(counts.enumerations_of(g.problem), 1) << "tuned once";
}

// The same for a result read_file loaded over one the Context had tuned: it is a loaded one
// now, and gives way to what the file holds when written.
TEST(OnlineTuning, AResultLoadedOverATunedOneGivesWayToTheFile) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm g(32, 32, 32);
  const std::string line = "GemmTunableOp_float_NN," + g.problem.params_signature();
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);
  ASSERT_TRUE(g.run(ctx).ok);
  ASSERT_EQ(ctx.lookup(g.problem).source, Source::Tuned) << log.all();
  write_text(dir / "team.csv", validator_lines() + line + ",Default,40\n");
  ASSERT_EQ(ctx.read_file((dir / "team.csv").string()).entries, 1u);
  // Meanwhile, a merge into the results file.
  write_text(dir / "results.csv", validator_lines() + line + ",Test_Fast,0.25\n");
  ctx.write_file();
  const std::string text = read_text(dir / "results.csv");
  EXPECT_EQ(lines_containing(dir / "results.csv", line + ",Test_Fast,0.25"), 1u) << text;
  EXPECT_EQ(lines_containing(dir / "results.csv", line), 1u) << text;
}

// write_file replaces the file with what the Context holds and keeps what the file holds that the
// Context does not: a line another process appended after the Context read the file (a tuning run
// on the same results file), or the results of a file the Context never loaded. Where both hold a
// problem the Context tuned, the Context's result is written.
TEST(OnlineTuning, WriteFileKeepsWhatTheFileHoldsThatTheContextDoesNot) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm loaded(32, 32, 32), appended(40, 40, 40), tuned(48, 48, 48);
  const std::string op = "GemmTunableOp_float_NN,";
  write_text(dir / "results.csv",
             validator_lines() + op + loaded.problem.params_signature() + ",Default,0.5\n");
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);
  ASSERT_EQ(ctx.load_report().entries, 1u) << ctx.load_report().message;
  // Another process appends to the file after this Context read it.
  {
    std::ofstream out(dir / "results.csv", std::ios::app);
    out << op << appended.problem.params_signature() << ",Default,0.25\n";
  }
  ASSERT_TRUE(tuned.run(ctx).ok);
  ASSERT_EQ(ctx.lookup(tuned.problem).source, Source::Tuned) << log.all();
  const std::string winner(ctx.lookup(tuned.problem).solution);  // Test_Fast, as a rule
  ctx.write_file();
  for (const FloatGemm* g : {&loaded, &appended, &tuned}) {
    EXPECT_EQ(lines_containing(dir / "results.csv", g->problem.params_signature()), 1u)
        << g->problem.params_signature() << "\n"
        << read_text(dir / "results.csv");
  }

  // Another file of this environment keeps its results; the Context's win where both have one.
  write_text(dir / "other.csv", validator_lines() + op + appended.problem.params_signature() +
                                    ",Default,0.125\n" + op + tuned.problem.params_signature() +
                                    ",Default,9.5\n");
  ctx.write_file((dir / "other.csv").string());
  const std::string other = read_text(dir / "other.csv");
  EXPECT_EQ(
      lines_containing(dir / "other.csv", appended.problem.params_signature() + ",Default,0.125"),
      1u)
      << other;
  EXPECT_EQ(
      lines_containing(dir / "other.csv", tuned.problem.params_signature() + "," + winner + ","),
      1u)
      << other;
  EXPECT_EQ(lines_containing(dir / "other.csv", tuned.problem.params_signature() + ",Default,9.5"),
            0u)
      << other;
  EXPECT_EQ(lines_containing(dir / "other.csv", loaded.problem.params_signature()), 1u) << other;
}

}  // namespace
}  // namespace gemmtune::testing
