// refuse_outputs_over_others: `gemmtune mamf --output_file res.csv --results res.csv` had emptied
// the results file before reading it, and `gemmtune bench --output-csv` could replace the results
// file or the workload; an output that is another path of the command is refused, naming both.
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

}  // namespace
}  // namespace gemmtune::cli
