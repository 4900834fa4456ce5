// refuse_outputs_over_others: `gemmtune mamf --output_file res.csv --results res.csv` had emptied
// the results file before reading it, and `gemmtune bench --output-csv` could replace the results
// file or the workload; an output that is another path of the command is refused, naming both.
// refuse_outputs_over_results: `bench --output-csv tunableop_results0.csv` replaced a results file
// that was no input of the run; a report never replaces results, a database or recorded GEMMs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/same_file_checks.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cli {
namespace {

std::string refusal(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  try {
    refuse_outputs_over_others(outputs, inputs);
    return {};
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(SameFileChecks, AnOutputOverAnInputOrAnotherOutputIsRefused) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gemmtune_same_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  const std::string results = (dir / "res.csv").string();
  std::ofstream(results) << "Validator,PT_VERSION,2.11.0\n";
  std::filesystem::create_symlink(results, dir / "link.csv");

  EXPECT_EQ(refusal({{"--output_file", (dir / "report.txt").string()}}, {{"--results", results}}),
            "");
  EXPECT_EQ(refusal({{"--output_file", results}}, {{"--results", results}}),
            "--output_file " + results + " and --results " + results +
                " name the same file: the output would replace it");
  // The same file by another name: "sub/../", a link, a file not there yet.
  EXPECT_NE(refusal({{"--output-csv", (dir / "sub" / ".." / "res.csv").string()}},
                    {{"--results", results}}),
            "");
  EXPECT_NE(refusal({{"--output-csv", (dir / "link.csv").string()}}, {{"--results", results}}), "");
  const std::string later = (dir / "later.jsonl").string();
  EXPECT_NE(refusal({{"--output-csv", later}, {"--output-jsonl", later}}, {}), "");
  // Paths not given never collide.
  EXPECT_EQ(refusal({{"--output-csv", ""}, {"--output-jsonl", ""}}, {{"--results", ""}}), "");
  std::filesystem::remove_all(dir);
}

std::string results_refusal(const std::string& option, const std::string& path) {
  try {
    refuse_outputs_over_results({{option, path}});
    return {};
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(SameFileChecks, AReportNeverReplacesResultsOrRecordedGemms) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gemmtune_over_results_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir / name, std::ios::binary) << content;
    return (dir / name).string();
  };
  // A BOM and a blank line first, as PyTorch's files on another platform may have them.
  const std::string results = write("res.csv", "\xEF\xBB\xBF\r\nValidator,PT_VERSION,2.11.0\r\n");
  EXPECT_EQ(results_refusal("--output-csv", results),
            "--output-csv " + results +
                ": holds tuning results (its first line is a Validator line), which a report "
                "would replace; name another file, or remove it first");
  const std::string db = write("res.db", std::string("SQLite format 3\0", 16) + "rest");
  EXPECT_NE(results_refusal("--output-jsonl", db).find("holds a SQLite database"),
            std::string::npos);
  const std::string untuned =
      write("untuned.csv", "GemmTunableOp_BFloat16_TN,tn_1536_16_7168_ld_7168_7168_1536\n");
  EXPECT_NE(results_refusal("--plot", untuned).find("holds recorded GEMMs"), std::string::npos);
  // An earlier report, an empty file, a file not there yet, a directory (refused elsewhere), and
  // no path at all: not results.
  EXPECT_EQ(
      results_refusal("--output-csv", write("report.csv", "case,origin,op,M,K,N\n1,a,b,2,3,4\n")),
      "");
  EXPECT_EQ(results_refusal("--output-csv", write("empty.csv", "")), "");
  EXPECT_EQ(results_refusal("--output-csv", (dir / "new.csv").string()), "");
  EXPECT_EQ(results_refusal("--output-csv", dir.string()), "");
  EXPECT_EQ(results_refusal("--output-csv", ""), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gemmtune::cli
