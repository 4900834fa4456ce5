// Validators at load: a file measured elsewhere is refused with the explanation, said once, and
// every GEMM runs Default; corrupt files of every kind never crash the application.
#include <gtest/gtest.h>

#include <random>

#include "db/results_store.hpp"
#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {
namespace {

class Validation : public ::testing::Test {
 protected:
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm g{32, 32, 32};

  std::string line() const {
    return "GemmTunableOp_float_NN," + g.problem.params_signature() + ",Test_Fast,0.01\n";
  }
  static std::string elsewhere_validators() {
    return "Validator,GEMMTUNE_VERSION,0.1.0\nValidator,GEMMTUNE_BACKEND,cuda\n"
           "Validator,GPU_NAME,NVIDIA H200\n";
  }
};

TEST_F(Validation, AFileMeasuredElsewhereIsRefusedWithTheExplanationOnce) {
  write_text(dir / "results.csv", elsewhere_validators() + line());
  Context ctx(test_options(dir, counts, log));
  const LoadReport r = ctx.load_report();
  EXPECT_TRUE(r.found);
  EXPECT_FALSE(r.accepted);
  EXPECT_NE(r.message.find("GEMMTUNE_BACKEND"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("'cuda'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("'cpu'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("Default"), std::string::npos) << r.message;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 5);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 0);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Untuned);
  EXPECT_EQ(log.count_containing("another environment"), 1u) << log.all();
}

TEST_F(Validation, PyTorchsOwnKeysDoNotRefuseAFile) {
  write_text(dir / "results.csv", "Validator,PT_VERSION,2.11.0\n" + validator_lines() + line());
  Context ctx(test_options(dir, counts, log));
  EXPECT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
}

// A results file without Validator lines (written by hand): its entries run, and the Context says
// at load, once, that what it tunes cannot be appended there.
TEST_F(Validation, AFileWithoutValidatorsIsUsedAndSaysItTakesNoAppends) {
  write_text(dir / "results.csv", line());
  Context ctx(test_options(dir, counts, log));
  EXPECT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
  EXPECT_EQ(log.count_containing("has no Validator lines"), 1u) << log.all();
}

TEST_F(Validation, BadLinesAreSkippedAndTheRestIsUsed) {
  write_text(dir / "results.csv", validator_lines() + "garbage,,\n" + line() +
                                      "GemmTunableOp_float_NN,nn_1_2,Default,notatime\n");
  Context ctx(test_options(dir, counts, log));
  const LoadReport r = ctx.load_report();
  EXPECT_TRUE(r.accepted);
  EXPECT_GE(r.bad_lines, 1u);
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
}

// A file none of whose lines reads (a README or a binary under a .csv name) is refused as no
// results file, as the docs say: it was "accepted" with 0 entries, and its appends then failed
// for another reason ("measured in another environment").
TEST_F(Validation, AFileWithNoReadableLineIsNoResultsFile) {
  write_text(dir / "results.csv", "# My tuning notes\nRun gemmtune tune first.\n");
  Context ctx(test_options(dir, counts, log));
  const LoadReport r = ctx.load_report();
  EXPECT_TRUE(r.found);
  EXPECT_FALSE(r.accepted);
  EXPECT_NE(r.message.find("is not a results file: none of its lines could be read"),
            std::string::npos)
      << r.message;
  EXPECT_THROW(ctx.write_file(), std::runtime_error);
  EXPECT_EQ(read_text(dir / "results.csv"), "# My tuning notes\nRun gemmtune tune first.\n");
}

TEST_F(Validation, CorruptFilesDoNotCrash) {
  std::mt19937 random(7);
  std::string noise(4096, '\0');
  for (auto& ch : noise) ch = static_cast<char>(random());
  const std::vector<std::pair<std::string, std::string>> files = {
      {"noise.csv", noise},
      {"noise.db", noise},
      {"truncated.db", std::string("SQLite format 3\0", 16) + noise.substr(0, 100)},
      {"empty.csv", ""},
      {"empty.db", ""},
      {"only_validators.csv", "Validator,GEMMTUNE_BACKEND\nValidator,,\n,,,,,\n"},
      {"huge_numbers.csv", validator_lines() +
                               "GemmTunableOp_float_NN,nn_99999999999999999999_1_1_ld_1_1_1,"
                               "Default,1\nGemmTunableOp_float_NN,nn_-5_1_1_ld_1_1_1,Default,1\n"},
      {"no_extension", "whatever"},
  };
  for (const auto& [name, content] : files) {
    SCOPED_TRACE(name);
    write_text(dir / name, content);
    Options o = test_options(dir, counts, log);
    o.filename = (dir / name).string();
    Context ctx(o);
    EXPECT_TRUE(g.run(ctx).ok);
    EXPECT_LT(g.max_error(), 1e-3);
    const LoadReport again = ctx.read_file();
    EXPECT_FALSE(again.message.empty() && !again.accepted);
  }
}

TEST_F(Validation, ReadFileOfAMismatchedFileKeepsWhatWasLoaded) {
  write_text(dir / "results.csv", validator_lines() + line());
  write_text(dir / "other.csv", "Validator,GEMMTUNE_BACKEND,cuda\n" + line());
  Context ctx(test_options(dir, counts, log));
  const LoadReport r = ctx.read_file((dir / "other.csv").string());
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
}

// What another machine tuned is never lost: a CSV file refused at load is neither replaced on
// exit nor by write_file; what was tuned here stays in memory, and the Context says why.
TEST_F(Validation, ARefusedFileIsNotReplacedOnExitNorByWriteFile) {
  const std::string elsewhere = elsewhere_validators() + line();
  write_text(dir / "results.csv", elsewhere);
  FloatGemm tuned_here(24, 24, 24);
  {
    Options o = test_options(dir, counts, log);
    o.tuning = true;
    o.write_file_on_exit = true;
    Context ctx(o);
    EXPECT_FALSE(ctx.load_report().accepted);
    ASSERT_TRUE(tuned_here.run(ctx).ok);
    // Tuned, whichever solution won (under ThreadSanitizer the CPU Default kept its place).
    EXPECT_EQ(ctx.lookup(tuned_here.problem).source, Source::Tuned);
    try {
      ctx.write_file();
      ADD_FAILURE() << "write_file replaced a file measured elsewhere";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("results.csv"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("another environment"), std::string::npos) << e.what();
    }
    ctx.write_file((dir / "mine.csv").string());  // another file takes them
  }
  EXPECT_EQ(read_text(dir / "results.csv"), elsewhere);
  EXPECT_EQ(lines_containing(dir / "mine.csv", tuned_here.problem.params_signature()), 1u);
  // Said on exit, naming the file and why.
  EXPECT_EQ(log.count_containing("write_file_on_exit: " + (dir / "results.csv").string() +
                                 " is not replaced: it was measured in another environment "
                                 "(GEMMTUNE_BACKEND: file 'cuda', this machine 'cpu')"),
            1u)
      << log.all();
}

// write_file never drops what it cannot carry over: lines it cannot read (a bad line, a file of
// recorded GEMMs named by mistake), or a CSV file's validators other than the Context's (PyTorch's
// PT_VERSION alone, which loads here but whose replacement would make PyTorch ignore the file).
TEST_F(Validation, WriteFileLeavesAFileWhoseLinesOrValidatorsItWouldLose) {
  const std::string with_bad_line =
      validator_lines() + line() + "GemmTunableOp_float_NN,nn_1_2,Default,notatime\n";
  write_text(dir / "results.csv", with_bad_line);
  const std::string untuned = "GemmTunableOp_float_NN," + g.problem.params_signature() + "\n";
  write_text(dir / "untuned.csv", untuned);
  const std::string pytorch = "Validator,PT_VERSION,2.11.0\n" + line();
  write_text(dir / "pytorch.csv", pytorch);
  const std::string unlabelled = line();
  write_text(dir / "unlabelled.csv", unlabelled);
  Context ctx(test_options(dir, counts, log));
  ASSERT_TRUE(ctx.load_report().accepted);
  const auto refusal = [&](const std::string& name) {
    try {
      ctx.write_file((dir / name).string());
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Naming the first bad line by file and line.
  EXPECT_NE(refusal("results.csv").find("holds 1 line(s) this Context cannot read"),
            std::string::npos);
  const auto bad_line = std::count(with_bad_line.begin(), with_bad_line.end(), '\n');  // the last
  EXPECT_NE(refusal("results.csv").find("results.csv:" + std::to_string(bad_line) + ": "),
            std::string::npos)
      << refusal("results.csv");
  EXPECT_NE(refusal("untuned.csv").find("none of its lines could be read"), std::string::npos);
  EXPECT_TRUE(ctx.read_file((dir / "pytorch.csv").string()).accepted);
  EXPECT_NE(refusal("pytorch.csv").find("its validators are not exactly this Context's"),
            std::string::npos);
  EXPECT_NE(refusal("unlabelled.csv").find("it has no Validator lines"), std::string::npos);
  EXPECT_EQ(read_text(dir / "results.csv"), with_bad_line);
  EXPECT_EQ(read_text(dir / "untuned.csv"), untuned);
  EXPECT_EQ(read_text(dir / "pytorch.csv"), pytorch);
  EXPECT_EQ(read_text(dir / "unlabelled.csv"), unlabelled);
  // A file of its own environment, or a new one, takes the results.
  ctx.write_file((dir / "mine.csv").string());
  ctx.write_file((dir / "mine.csv").string());
  EXPECT_EQ(lines_containing(dir / "mine.csv", g.problem.params_signature()), 1u);
}

// A database keeps one table per environment, so writing this machine's leaves the other's.
TEST_F(Validation, WriteFileOnExitAddsThisEnvironmentToADatabaseMeasuredElsewhere) {
  ResultsTable other;
  other.environment = Environment{{"GEMMTUNE_BACKEND", "cuda"}, {"GPU_NAME", "NVIDIA H200"}};
  other.upsert({"GemmTunableOp_float_NN", g.problem.params_signature(), "Test_Fast", 0.01, {}});
  open_results_store(dir / "results.db")->write(other);
  FloatGemm tuned_here(24, 24, 24);
  {
    Options o = test_options(dir, counts, log);
    o.filename = (dir / "results.db").string();
    o.tuning = true;
    o.write_file_on_exit = true;
    Context ctx(o);
    EXPECT_FALSE(ctx.load_report().accepted);
    ASSERT_TRUE(tuned_here.run(ctx).ok);
  }
  const auto tables = open_results_store(dir / "results.db")->load();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].environment, other.environment);
  EXPECT_EQ(tables[0].entries, other.entries);
  EXPECT_NE(tables[1].find("GemmTunableOp_float_NN", tuned_here.problem.params_signature()),
            nullptr);
}

// A database with this machine's own table and one that matches every machine (PyTorch's
// PT_VERSION alone, listed first): the machine's own is used, not the first that matches.
TEST_F(Validation, ADatabasesOwnEnvironmentComesBeforeOneThatMatchesAnyMachine) {
  Environment here;
  {
    Options probe = test_options(dir, counts, log);
    probe.filename = (dir / "none.csv").string();
    for (const auto& [key, value] : Context(probe).validators()) here.set(key, value);
  }
  ResultsTable loose, own;
  loose.environment = Environment{{"PT_VERSION", "2.11.0"}};
  loose.upsert({"GemmTunableOp_float_NN", g.problem.params_signature(), "Default", 9.9, {}});
  own.environment = here;
  own.upsert({"GemmTunableOp_float_NN", g.problem.params_signature(), "Test_Fast", 0.01, {}});
  {
    auto store = open_results_store(dir / "results.db");
    store->write(loose);
    store->write(own);
  }
  Options o = test_options(dir, counts, log);
  o.filename = (dir / "results.db").string();
  Context ctx(o);
  ASSERT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
}

// read_file merges another file's results; it does not make that file's validators the ones
// appended and written to filename() (a PyTorch file has PT_VERSION alone).
TEST_F(Validation, ReadFileOfAnotherFileKeepsAppendingWithThisMachinesValidators) {
  FloatGemm tuned_later(24, 24, 24);
  write_text(dir / "results.csv", validator_lines() + line());
  write_text(
      dir / "pt.csv",
      "Validator,PT_VERSION,2.11.0\nGemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8,Default,0.01\n");
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);
  const LoadReport r = ctx.read_file((dir / "pt.csv").string());
  ASSERT_TRUE(r.accepted) << r.message;
  ASSERT_TRUE(tuned_later.run(ctx).ok);
  EXPECT_EQ(log.count_containing("cannot append"), 0u) << log.all();
  EXPECT_EQ(lines_containing(dir / "results.csv", tuned_later.problem.params_signature()), 1u);
  ctx.write_file((dir / "all.csv").string());
  const std::string all = read_text(dir / "all.csv");
  EXPECT_EQ(all.rfind(validator_lines(), 0), 0u) << all;
  EXPECT_EQ(lines_containing(dir / "all.csv", "PT_VERSION"), 0u) << all;
  EXPECT_EQ(lines_containing(dir / "all.csv", "nn_8_8_8_ld_8_8_8"), 1u) << all;
}

}  // namespace
}  // namespace gemmtune::testing
