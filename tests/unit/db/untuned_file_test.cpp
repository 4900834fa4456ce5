// Untuned files: every fixture reads cleanly, several files and globs, dedupe, extra fields,
// and every kind of bad line explained with its line number while good lines survive.
#include "db/untuned_file.hpp"

#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr const char* kUntunedFixtures[] = {"gpt2_fp16_untuned.csv", "gpt2_fp32_untuned.csv",
                                            "gpt2_tf32_untuned.csv", "mistral_bf16_untuned.csv"};

TEST(UntunedFile, EveryFixtureReadsWithoutDiagnosticsAndWritesBackIdentically) {
  for (const char* name : kUntunedFixtures) {
    Diagnostics d;
    const auto path = testing::fixture(name);
    const auto entries = read_untuned_file(path, d);
    EXPECT_TRUE(d.empty()) << name << ":\n" << d.format_all();
    EXPECT_GT(entries.size(), 20u) << name;
    for (const auto& e : entries) {
      EXPECT_EQ(e.problem.op_signature(), e.op_signature);
      EXPECT_EQ(e.problem.params_signature(), e.params_signature);
      EXPECT_EQ(e.file, path.string());
    }
    EXPECT_EQ(format_untuned(entries), testing::read_text(path)) << name;
  }
}

TEST(UntunedFile, ResultsFixtureReadsAsUntunedWithExtraFieldsKept) {
  Diagnostics d;
  const auto entries = read_untuned_file(testing::fixture("mistral_bf16_results.csv"), d);
  EXPECT_EQ(d.error_count(), 0u);
  EXPECT_EQ(d.warning_count(), 1u);  // the Validator line
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].extra, (std::vector<std::string>{"Default", "0.00737504"}));
  EXPECT_EQ(entries[0].line, 2);
}

TEST(UntunedFile, SeveralFilesKeepFileThenLineOrder) {
  Diagnostics d;
  const std::vector<std::filesystem::path> paths{testing::fixture("gpt2_fp32_untuned.csv"),
                                                 testing::fixture("gpt2_fp16_untuned.csv")};
  const auto entries = read_untuned_files(paths, d);
  EXPECT_EQ(entries.size(), 28u + 41u);
  EXPECT_EQ(entries.front().problem.dtype(), DType::Float32);
  EXPECT_EQ(entries.back().problem.dtype(), DType::Float16);
  EXPECT_EQ(entries.back().line, 41);
}

TEST(UntunedFile, GlobPatternsExpandSortedAndNoMatchIsAnError) {
  Diagnostics d;
  const std::vector<std::string> patterns{std::string(GEMMTUNE_TEST_FIXTURES) +
                                          "/gpt2_*_untuned.csv"};
  const auto paths = expand_patterns(patterns);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0].filename(), "gpt2_fp16_untuned.csv");
  EXPECT_EQ(paths[2].filename(), "gpt2_tf32_untuned.csv");
  EXPECT_EQ(read_untuned_patterns(patterns, d).size(), 41u + 28u + 28u);

  const std::vector<std::string> none{std::string(GEMMTUNE_TEST_FIXTURES) + "/nothing_*.csv"};
  try {
    expand_patterns(none);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "'" + none[0] + "' matches no file");
  }
}

TEST(UntunedFile, DedupeKeepsFirstOccurrenceWithItsExtraFields) {
  Diagnostics d;
  auto entries = parse_untuned(
      "GemmTunableOp_Half_NN,nn_64_64_64_ld_64_64_64,first\n"
      "GemmTunableOp_Half_TN,tn_64_64_64_ld_64_64_64\n"
      "GemmTunableOp_Half_NN,nn_64_64_64_ld_64_64_64,second,more\n",
      "dup.csv", d);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(dedupe_untuned(entries), 1u);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].extra, std::vector<std::string>{"first"});
  EXPECT_EQ(entries[0].line, 1);
  EXPECT_EQ(entries[1].line, 2);

  // Every fixture concatenated with itself dedupes back to the distinct problems.
  auto twice = read_untuned_file(testing::fixture("gpt2_fp16_untuned.csv"), d);
  const auto once = twice.size();
  auto again = read_untuned_file(testing::fixture("gpt2_fp16_untuned.csv"), d);
  twice.insert(twice.end(), again.begin(), again.end());
  dedupe_untuned(twice);
  EXPECT_LE(twice.size(), once);
}

TEST(UntunedFile, WriteIsReadBackIdentically) {
  testing::TempDir dir;
  Diagnostics d;
  const auto entries = parse_untuned(
      "GemmTunableOp_Half_NN,nn_64_64_64_ld_64_64_64,x,,y\n"
      "GemmStridedBatchedTunableOp_Half_TN,tn_128_128_64_B_12_ld_64_2304_128\n",
      "in.csv", d);
  write_untuned_file(dir / "out.csv", entries);
  EXPECT_EQ(testing::read_text(dir / "out.csv"),
            "GemmTunableOp_Half_NN,nn_64_64_64_ld_64_64_64,x,,y\n"
            "GemmStridedBatchedTunableOp_Half_TN,tn_128_128_64_B_12_ld_64_2304_128\n");
}

// A signature in another form than PyTorch's (a leading zero, lower-case transposes) is read as
// PyTorch writes it: resume compares signatures as text, and PyTorch looks them up so.
TEST(UntunedFile, SignaturesAreReadInPyTorchsForm) {
  Diagnostics d;
  const auto entries = parse_untuned(
      "GemmTunableOp_float_NN,nn_032_32_32_ld_32_32_32\nGemmTunableOp_float_nt,NT_8_8_8_ld_8_8_8\n",
      "odd.csv", d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].params_signature, "nn_32_32_32_ld_32_32_32");
  EXPECT_EQ(entries[1].op_signature, "GemmTunableOp_float_NT");
  EXPECT_EQ(entries[1].params_signature, "nt_8_8_8_ld_8_8_8");
}

// A file whose name has glob(3)'s special characters is that file, where it is there.
TEST(UntunedFile, AFileNamedLikeAPatternIsThatFile) {
  testing::TempDir dir;
  testing::write_text(dir / "x[1].csv", "GemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8\n");
  const std::vector<std::string> named{(dir / "x[1].csv").string()};
  const auto paths = expand_patterns(named);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0], dir / "x[1].csv");
}

TEST(UntunedFile, AcceptsBomCrlfBlankLinesAndTrailingSpaces) {
  Diagnostics d;
  const auto entries = parse_untuned(
      "\xEF\xBB\xBFGemmTunableOp_Half_NN,nn_64_64_64_ld_64_64_64  \r\n\r\n"
      "GemmTunableOp_Half_TN,tn_64_64_64_ld_64_64_64\t\r\n",
      "win.csv", d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].line, 3);
  EXPECT_EQ(entries[1].params_signature, "tn_64_64_64_ld_64_64_64");
}

struct BadLine {
  std::string text;
  std::string message;
};

// One good line, then every kind of bad line, then a good line: the bad ones are explained with
// their line numbers, the good ones kept.
TEST(UntunedFile, EveryKindOfBadLineIsExplainedAndGoodLinesSurvive) {
  const std::vector<BadLine> bad{
      {"FooTunableOp_Half_NN,nn_64_64_64_ld_64_64_64",
       "unknown op 'Foo' (expected Gemm, GemmAndBias, GemmStridedBatched or ScaledGemm)"},
      {"GemmTunableOp_Quarter_NN,nn_64_64_64_ld_64_64_64",
       "unknown dtype 'Quarter' in op signature"},
      {"GemmTunableOp_Half_TN,nn_64_64_64_ld_64_64_64",
       "transposes disagree: op signature says tn, params signature says nn"},
      {"GemmTunableOp_Half_NN,nn_64__64_ld_64_64_64", "n is missing"},
      {"GemmTunableOp_Half_NN,nn_64_x_64_ld_64_64_64", "n is not a number: 'x'"},
      {"GemmTunableOp_Half_NN,nn_-64_64_64_ld_64_64_64", "m is negative: '-64'"},
      {"GemmTunableOp_Half_NN,nn_99999999999999999999_64_64_ld_64_64_64",
       "m overflows a 64-bit integer: '99999999999999999999'"},
      {"GemmTunableOp_Half_NN,nn_64_64_64_ld_32_64_64",
       "lda=32 is smaller than the 64 rows it must span for transposes nn"},
      {"GemmTunableOp_Half_NN,nn_8_512_8_ld_8_768000000000000000_8",
       "operand sizes overflow 64-bit element counts (ldb=768000000000000000 times 512 "
       "columns)"},
      {"GemmTunableOp_Half_NN",
       "expected at least 2 fields (op_signature,params_signature), got 1"},
      {"GemmTunableOp_Half_NN,nn_64_64",
       "params signature 'nn_64_64' ends before k (expected "
       "<ta><tb>_<m>_<n>_<k>[_B_<batch>]_ld_<lda>_<ldb>_<ldc>)"},
  };
  std::string content = "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8\n";
  for (const auto& b : bad) content += b.text + "\n";
  content += "GemmTunableOp_Half_TN,tn_8_8_8_ld_8_8_8\n";

  Diagnostics d;
  const auto entries = parse_untuned(content, "bad.csv", d);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].line, 1);
  EXPECT_EQ(entries[1].line, static_cast<int>(bad.size()) + 2);
  ASSERT_EQ(d.error_count(), bad.size()) << d.format_all();
  for (std::size_t i = 0; i < bad.size(); ++i) {
    const auto& diag = d.all()[i];
    EXPECT_EQ(diag.file, "bad.csv");
    EXPECT_EQ(diag.line, static_cast<int>(i) + 2);
    EXPECT_EQ(diag.text, bad[i].text);
    EXPECT_EQ(diag.message, bad[i].message);
  }
  EXPECT_EQ(format_diagnostic(d.all()[2]),
            "bad.csv:4: transposes disagree: op signature says tn, params signature says nn\n"
            "    GemmTunableOp_Half_TN,nn_64_64_64_ld_64_64_64");
}

TEST(UntunedFile, TruncatedLastLineIsReportedAsSuch) {
  Diagnostics d;
  const auto entries = parse_untuned(
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8\nGemmTunableOp_Half_NN,nn_64_64_64_ld_64_6", "t.csv",
      d);
  EXPECT_EQ(entries.size(), 1u);
  ASSERT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.all()[0].line, 2);
  EXPECT_EQ(d.all()[0].message,
            "truncated last line (no newline at end of file): params signature "
            "'nn_64_64_64_ld_64_6' ends before ldc (expected "
            "<ta><tb>_<m>_<n>_<k>[_B_<batch>]_ld_<lda>_<ldb>_<ldc>)");
}

TEST(UntunedFile, LastLineWithoutNewlineThatParsesIsFine) {
  Diagnostics d;
  const auto entries = parse_untuned("GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8", "t.csv", d);
  EXPECT_EQ(entries.size(), 1u);
  EXPECT_TRUE(d.empty());
}

TEST(UntunedFile, StrictThrowsOnFirstBadLineNamingFileLineAndText) {
  Diagnostics strict(/*strict=*/true);
  try {
    parse_untuned(
        "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8\nGemmTunableOp_Half_NN,nn_8_8_8_ld_4_8_8\n",
        "s.csv", strict);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "s.csv:2: lda=4 is smaller than the 8 rows it must span for transposes nn\n"
                 "    GemmTunableOp_Half_NN,nn_8_8_8_ld_4_8_8");
  }
}

TEST(UntunedFile, MissingFileIsAnInputError) {
  testing::TempDir dir;
  Diagnostics d;
  EXPECT_THROW(read_untuned_file(dir / "nope.csv", d), InputError);
}

}  // namespace
}  // namespace gemmtune
