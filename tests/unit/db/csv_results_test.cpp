// Results CSV: byte-exact round trip of a PyTorch file, validators anywhere, kept unknown kinds,
// duplicates (the first wins, as in PyTorch, reported) and every kind of bad line.
#include "db/csv_results.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "db/untuned_file.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(CsvResults, PyTorchFileRoundTripsByteForByte) {
  const auto path = testing::fixture("mistral_bf16_results.csv");
  const std::string original = testing::read_text(path);
  Diagnostics d;
  const ResultsTable table = read_results_csv(path, d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  EXPECT_EQ(table.environment.size(), 1u);
  EXPECT_EQ(table.environment.get("PT_VERSION"), "2.11.0");
  EXPECT_EQ(table.entries.size(), 34u);
  EXPECT_EQ(format_results_csv(table), original);

  testing::TempDir dir;
  write_results_csv(dir / "copy.csv", table);
  EXPECT_EQ(testing::read_text(dir / "copy.csv"), original);
}

// find() answers from an index that upsert() keeps; entries added without it (tests, a caller
// filling `entries` itself) are found too, the first of equal ones as a search from the front.
TEST(ResultsTable, FindsEveryEntryHoweverItWasAdded) {
  ResultsTable table;
  for (int m = 8; m <= 800; m += 8) {
    table.upsert(
        {"GemmTunableOp_float_NN", fmt::format("nn_{}_8_8_ld_{}_8_{}", m, m, m), "A", 0.5, {}});
  }
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_8_8_8_ld_8_8_8")->solution, "A");
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_12_8_8_ld_12_8_12"), nullptr);
  EXPECT_EQ(table.find("GemmTunableOp_float_TN", "nn_8_8_8_ld_8_8_8"), nullptr);
  table.upsert({"GemmTunableOp_float_NN", "nn_16_8_8_ld_16_8_16", "B", 0.25, {}});
  EXPECT_EQ(table.entries.size(), 100u);
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_16_8_8_ld_16_8_16")->solution, "B");

  // Signatures a file may hold with any bytes in them keep keys of their own.
  const std::string op_a("X\0x", 3), params_a("nn", 2), op_b("X", 1), params_b("x\0nn", 4);
  table.upsert({op_a, params_a, "E", 1.0, {}});
  table.upsert({op_b, params_b, "F", 1.0, {}});
  EXPECT_EQ(table.find(op_a, params_a)->solution, "E");
  EXPECT_EQ(table.find(op_b, params_b)->solution, "F");
  EXPECT_EQ(table.index_by_key.size(), table.entries.size());  // whole: no search from scratch

  table.entries.push_back({"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8", "C", 1.0, {}});
  table.entries.push_back({"GemmTunableOp_float_NN", "nn_16_8_8_ld_16_8_16", "D", 1.0, {}});
  EXPECT_EQ(table.find("GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8")->solution, "C");
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_16_8_8_ld_16_8_16")->solution, "B");
  table.entries.erase(table.entries.begin());
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_8_8_8_ld_8_8_8"), nullptr);
  EXPECT_EQ(table.find("GemmTunableOp_float_NN", "nn_800_8_8_ld_800_8_800")->solution, "A");
}

// A SQLite database under a .csv name is said to be one, not read as a hundred binary bad lines;
// so for an untuned file. (The parsers themselves read any text: that is the files' check.)
TEST(CsvResults, ASqliteDatabaseUnderACsvNameIsSaidToBeOne) {
  testing::TempDir dir;
  testing::write_text(dir / "copied.csv",
                      std::string("SQLite format 3\0", 16) + std::string(100, '\x01'));
  Diagnostics d;
  try {
    (void)read_results_csv(dir / "copied.csv", d);
    FAIL() << "read a SQLite database as CSV";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("copied.csv: a SQLite database, not a CSV file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)read_untuned_file(dir / "copied.csv", d), InputError);
  EXPECT_TRUE(d.empty());
}

// UTF-16 (PowerShell's `>`, a spreadsheet's export) is said to be UTF-16, with the way out, not
// read as lines of NULs: with and without a byte-order mark, results and untuned files alike.
TEST(CsvResults, Utf16TextIsSaidToBeUtf16) {
  testing::TempDir dir;
  const auto utf16 = [](std::string_view bom, std::string_view text) {
    std::string out(bom);
    for (const char c : text) out += std::string{c, '\0'};
    return out;
  };
  const std::string line = "Validator,PT_VERSION,2.11.0\r\n";
  testing::write_text(dir / "bom.csv", utf16("\xFF\xFE", line));
  testing::write_text(dir / "no_bom.csv", utf16("", line));
  Diagnostics d;
  try {
    (void)read_results_csv(dir / "bom.csv", d);
    FAIL() << "read UTF-16 as UTF-8";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bom.csv: UTF-16LE text, not UTF-8; convert it first "
                                         "(iconv -f UTF-16LE -t UTF-8 "),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)read_results_csv(dir / "no_bom.csv", d), InputError);
  EXPECT_THROW((void)read_untuned_file(dir / "bom.csv", d), InputError);
  EXPECT_TRUE(d.empty());
}

// A tail of NULs (what a crash can leave after an append on some file systems) is a bad line of
// an otherwise good file, not a reason to refuse all of it.
TEST(CsvResults, ATailOfNulsIsABadLineNotAnotherEncoding) {
  testing::TempDir dir;
  testing::write_text(dir / "crashed.csv",
                      "Validator,PT_VERSION,2.11.0\n"
                      "GemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8,Default,0.01\n" +
                          std::string(100, '\0'));
  Diagnostics d;
  const ResultsTable table = read_results_csv(dir / "crashed.csv", d);
  EXPECT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(d.error_count(), 1u);
}

TEST(CsvResults, TimesAreWrittenLikePyTorch) {
  // PyTorch prints times with an ostream's default format, printf's %g.
  EXPECT_EQ(format_time_ms(0.00737504), "0.00737504");
  EXPECT_EQ(format_time_ms(0.0119782), "0.0119782");
  EXPECT_EQ(format_time_ms(0.009208), "0.009208");
  EXPECT_EQ(format_time_ms(12.5), "12.5");
  EXPECT_EQ(format_time_ms(1e-5), "1e-05");
  EXPECT_EQ(format_time_ms(0.0123456789), "0.0123457");
}

TEST(CsvResults, EveryPyTorchTimeSurvivesFormatting) {
  // Without the remembered spelling, formatting alone reproduces PyTorch's text too.
  Diagnostics d;
  ResultsTable table = read_results_csv(testing::fixture("mistral_bf16_results.csv"), d);
  table.time_texts.clear();
  EXPECT_EQ(format_results_csv(table),
            testing::read_text(testing::fixture("mistral_bf16_results.csv")));
}

TEST(CsvResults, UnusualTimeSpellingIsKeptUntilTheTimeChanges) {
  Diagnostics d;
  const std::string text =
      "Validator,K,V\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.0100\n";
  ResultsTable table = parse_results_csv(text, "t.csv", d);
  EXPECT_EQ(format_results_csv(table), text);
  table.entries[0].time_ms = 0.02;
  EXPECT_EQ(format_results_csv(table),
            "Validator,K,V\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.02\n");
}

TEST(CsvResults, ExtraFieldsAndValidatorsAfterEntriesAreKept) {
  Diagnostics d;
  const ResultsTable table = parse_results_csv(
      "Validator,PT_VERSION,2.11.0\n"
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.01,extra1,,extra3\n"
      "Validator,CUBLASLT_VERSION,130100\n"
      "Validator,ROCM_VERSION,6.0,with,commas\n",
      "t.csv", d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  EXPECT_EQ(table.entries[0].extra, (std::vector<std::string>{"extra1", "", "extra3"}));
  EXPECT_EQ(format_results_csv(table),
            "Validator,PT_VERSION,2.11.0\n"
            "Validator,CUBLASLT_VERSION,130100\n"
            "Validator,ROCM_VERSION,6.0,with,commas\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.01,extra1,,extra3\n");
}

TEST(CsvResults, UnparseableSignaturesAreKeptWithAWarning) {
  Diagnostics d;
  const std::string text =
      "Validator,PT_VERSION,2.20.0\n"
      "FutureGemmTunableOp_Float4_TN,tn_8_8_8_ld_8_8_8_newthing_3,Default,0.5\n";
  const ResultsTable table = parse_results_csv(text, "future.csv", d);
  EXPECT_EQ(d.error_count(), 0u);
  ASSERT_EQ(d.warning_count(), 1u);
  EXPECT_EQ(d.all()[0].line, 2);
  EXPECT_NE(d.all()[0].message.find("kept as-is, but gemmtune cannot use it: unknown op"),
            std::string::npos)
      << d.all()[0].message;
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(format_results_csv(table), text);
}

// PyTorch's ReadFile emplaces each line into a map, so the first entry of a problem is the one it
// runs; gemmtune reads the file the same way (a faster second entry too).
TEST(CsvResults, DuplicateProblemFirstWinsAsInPyTorchAndIsReported) {
  Diagnostics d;
  const ResultsTable table = parse_results_csv(
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n"
      "GemmTunableOp_Half_TN,tn_8_8_8_ld_8_8_8,Default,0.5\n"
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Other,0.4\n",
      "dup.csv", d);
  ASSERT_EQ(table.entries.size(), 2u);
  EXPECT_EQ(table.entries[0].solution, "Default");
  EXPECT_EQ(table.entries[0].time_ms, 0.5);
  ASSERT_EQ(d.warning_count(), 1u);
  EXPECT_EQ(d.all()[0].line, 3);
  EXPECT_EQ(d.all()[0].message,
            "second entry for this problem, ignored: the first (Default, 0.5 ms) is the one "
            "PyTorch runs");
}

TEST(CsvResults, EveryKindOfBadLineIsExplainedAndGoodLinesSurvive) {
  struct Bad {
    std::string text, message;
  };
  const std::vector<Bad> bad{
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,fast", "time_ms is not a number: 'fast'"},
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,-0.5", "time_ms is negative: '-0.5'"},
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,nan", "time_ms is not finite: 'nan'"},
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,", "time_ms is missing"},
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default",
       "expected at least 4 fields (op_signature,params_signature,solution,time_ms), got 3"},
      {"GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,,0.5", "solution name is empty"},
      {",,Default,0.5", "op_signature and params_signature must not be empty"},
      {"Validator,PT_VERSION", "a Validator line needs a key and a value: Validator,KEY,VALUE"},
      {"Validator,PT_VERSION,9.9",
       "validator PT_VERSION given again with another value (first '2.11.0', here '9.9'); the "
       "first is kept"},
  };
  std::string content = "Validator,PT_VERSION,2.11.0\n";
  for (const auto& b : bad) content += b.text + "\n";
  content += "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.25\n";
  Diagnostics d;
  const ResultsTable table = parse_results_csv(content, "bad.csv", d);
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(table.entries[0].time_ms, 0.25);
  EXPECT_EQ(table.environment.get("PT_VERSION"), "2.11.0");
  ASSERT_EQ(d.error_count(), bad.size()) << d.format_all();
  for (std::size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(d.all()[i].line, static_cast<int>(i) + 2);
    EXPECT_EQ(d.all()[i].text, bad[i].text);
    EXPECT_EQ(d.all()[i].message, bad[i].message);
  }
}

TEST(CsvResults, TruncatedLastLineIsReported) {
  Diagnostics d;
  const ResultsTable table = parse_results_csv(
      "Validator,PT_VERSION,2.11.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n"
      "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Gemm_Cubl",
      "trunc.csv", d);
  EXPECT_EQ(table.entries.size(), 1u);
  ASSERT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.all()[0].line, 3);
  EXPECT_EQ(d.all()[0].message,
            "truncated last line (no newline at end of file): expected at least 4 fields "
            "(op_signature,params_signature,solution,time_ms), got 3");
}

TEST(CsvResults, StrictThrowsOnFirstBadLine) {
  Diagnostics strict(/*strict=*/true);
  EXPECT_THROW(
      parse_results_csv("GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,x\n", "s.csv", strict),
      InputError);
}

}  // namespace
}  // namespace gemmtune
