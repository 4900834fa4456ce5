// Validators at load: a file measured elsewhere is refused with the explanation, said once, and
// every GEMM runs Default; corrupt files of every kind never crash the application.
#include <gtest/gtest.h>

#include <random>

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
};

TEST_F(Validation, AFileMeasuredElsewhereIsRefusedWithTheExplanationOnce) {
  write_text(dir / "results.csv",
             "Validator,GEMMTUNE_VERSION,0.1.0\nValidator,GEMMTUNE_BACKEND,cuda\n"
             "Validator,GPU_NAME,NVIDIA H200\n" + line());
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

TEST_F(Validation, BadLinesAreSkippedAndTheRestIsUsed) {
  write_text(dir / "results.csv", validator_lines() + "garbage,,\n" + line() +
                                      "GemmTunableOp_float_NN,nn_1_2,Default,notatime\n");
  Context ctx(test_options(dir, counts, log));
  const LoadReport r = ctx.load_report();
  EXPECT_TRUE(r.accepted);
  EXPECT_GE(r.bad_lines, 1u);
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
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

}  // namespace
}  // namespace gemmtune::testing
