// Numeric options refuse nan and inf (CLI11's own range checks let nan through), and the error
// names the option; --workspace-mb has an upper bound, so that its cast to bytes stays in range,
// and so do --workers and --gpus (each device is a process). Values gemmtune parses itself
// (cli/value_checks.hpp) are refused as the line is parsed too: usage errors, not bad input.
#include <gtest/gtest.h>

#include <filesystem>

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/number_checks.hpp"
#include "cli/value_checks.hpp"

namespace gemmtune::cli {
namespace {

// Parses `gemmtune ARGS`; returns the usage error's message, or "" when the line was accepted.
// Only lines that fail validation are given, so no subcommand ever runs.
std::string usage_error(std::vector<std::string> args) {
  const auto app = make_app();
  std::vector<const char*> argv{"gemmtune"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app->parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ValidationError& e) {
    return e.what();
  }
  return "";
}

TEST(NumberChecks, RefuseWhatIsNotAFiniteNumberInRange) {
  std::string text = "nan";
  const auto non_negative = finite_non_negative();
  for (const std::string bad : {"nan", "NaN", "-nan", "inf", "-inf", "-1", "abc"}) {
    text = bad;
    EXPECT_FALSE(non_negative(text).empty()) << bad;
  }
  for (const std::string good : {"0", "1.5", "1e3"}) {
    text = good;
    EXPECT_EQ(non_negative(text), "") << good;
  }
  text = "0";
  EXPECT_FALSE(finite_positive()(text).empty());
  text = "100.5";
  EXPECT_FALSE(finite_range(0, 100)(text).empty());
  text = "100";
  EXPECT_EQ(finite_range(0, 100)(text), "");
}

// Every floating option of tune, bench and mamf: nan is a usage error naming the option.
TEST(NumberOptions, NanIsAUsageErrorNamingTheOption) {
  const std::vector<std::string> tuning = {"--max-tuning-duration-ms", "--max-warmup-duration-ms",
                                           "--rotating-buffer-mb",     "--settle-ms",
                                           "--min-gain-percent",       "--workspace-mb",
                                           "--idle-between-turns-ms"};
  std::vector<std::vector<std::string>> lines;
  for (const auto& o : tuning) {
    lines.push_back({"tune", "--problem", "x", o, "nan"});
    lines.push_back({"bench", "w.json", o, "nan"});
  }
  lines.push_back({"tune", "--problem", "x", "--problem-timeout-s", "nan"});
  for (const std::string o : {"--warmup-ms", "--peak-tflops", "--peak-bandwidth-gb-s"}) {
    lines.push_back({"bench", "w.json", o, "nan"});
  }
  for (const std::string o : {"--sustained", "--max-warmup-seconds", "--peak-tflops"}) {
    lines.push_back({"mamf", "--m", "64", "--n", "64", "--k", "64", o, "nan"});
    lines.push_back({"mamf", "--m", "64", "--n", "64", "--k", "64", o, "inf"});
  }
  for (const auto& line : lines) {
    const std::string& option = line[line.size() - 2];
    const std::string error = usage_error(line);
    EXPECT_NE(error.find(option), std::string::npos)
        << line[0] << " " << option << " " << line.back() << ": '" << error << "'";
  }
}

// Counts near INT_MAX would overflow warm + timed; they are refused, naming the option.
TEST(NumberOptions, MamfIterationsAreBounded) {
  for (const std::string o : {"--num_iterations", "--num_warmup_iterations"}) {
    EXPECT_NE(usage_error({"mamf", "--m", "64", "--n", "64", "--k", "64", o, "2147483647"}).find(o),
              std::string::npos);
  }
}

TEST(NumberOptions, WorkspaceIsBounded) {
  EXPECT_NE(
      usage_error({"tune", "--problem", "x", "--workspace-mb", "1e30"}).find("--workspace-mb"),
      std::string::npos);
  EXPECT_NE(usage_error({"bench", "w.json", "--workspace-mb", "1048577"}).find("--workspace-mb"),
            std::string::npos);
}

TEST(NumberOptions, WorkerProcessesAreBounded) {
  EXPECT_NE(usage_error({"tune", "--problem", "x", "--workers", "100000"}).find("<= 256"),
            std::string::npos);
  EXPECT_NE(usage_error({"tune", "--problem", "x", "--gpus", "257"}).find("--gpus"),
            std::string::npos);
  std::string ordinals = "0";
  for (int i = 1; i <= 256; ++i) ordinals += "," + std::to_string(i);
  EXPECT_NE(usage_error({"tune", "--problem", "x", "--devices", ordinals}).find("at most 256"),
            std::string::npos);
  EXPECT_NE(usage_error({"tune", "--problem", "x", "--devices", "1,1"}).find("--devices"),
            std::string::npos);
}

TEST(ValueOptions, RefusedValuesAreUsageErrorsNamingTheOption) {
  const std::vector<std::string> mamf = {"mamf", "--m", "64", "--n", "64", "--k", "64"};
  const auto with = [](std::vector<std::string> line, std::vector<std::string> more) {
    line.insert(line.end(), more.begin(), more.end());
    return line;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"tune", "--problem", "x", "--numerical-check", "maybe"}, "--numerical-check"},
      {{"bench", "w.json", "--numerical-check", "1e-3"}, "--numerical-check"},
      {with(mamf, {"--numerical-check", "maybe"}), "--numerical-check"},
      {{"tune", "--problem", "x", "--shard", "2/2"}, "--shard"},
      {{"tune", "--problem", "x", "--shard", "half"}, "--shard"},
      {{"tune", "--problem", "x", "--providers", "cpu,nope"}, "--providers"},
      {{"bench", "w.json", "--providers", "nope"}, "--providers"},
      {with(mamf, {"--dtype", "complex64"}), "--dtype"},
      {{"bench", "w.json", "--dtype", "quarter"}, "--dtype"},
      {{"mamf", "--m_range", "512", "512", "64"}, "--m_range"},
      {{"mamf", "--k_range", "0", "128", "0"}, "--k_range"},
      {{"mamf", "--n", "64", "0"}, "--n"},
      // A results file's name that no store reads (exit 3, as if a file were bad, before).
      {{"tune", "--problem", "x", "-o", "results.txt"}, "--output"},
      {with(mamf, {"--db", "store.json"}), "--db"},
      {with(mamf, {"--results", "tuned"}), "--results"},
      {{"bench", "w.json", "--results", "r.tsv"}, "--results"},
      {{"db", "show", "r.txt"}, "file"},
      {{"db", "check", "r.csv", "--against", "o.txt"}, "--against"},
      {{"db", "convert", "r.csv", "r.json"}, "output"},
      {{"db", "merge", "out.csv", "a.csv", "b.txt"}, "inputs"},
  };
  for (const auto& [line, option] : cases) {
    const std::string error = usage_error(line);
    EXPECT_NE(error.find(option), std::string::npos)
        << line[0] << " " << option << ": '" << error << "'";
  }
}

TEST(ValueOptions, AResultsFileNameIsCheckedButADirectoryIsLeftToTheStore) {
  const CLI::Validator check = results_file_name();
  for (std::string good :
       {"r.csv", "R.DB", "t.sqlite", "t.sqlite3", "r%d.csv", "r.rank1.csv", ""}) {
    EXPECT_EQ(check(good), "") << good;
  }
  for (std::string bad : {"r.txt", "results", "r.csv.bak"}) EXPECT_NE(check(bad), "") << bad;
  // An existing directory is the store's to refuse ("is a directory, not a results file", exit
  // 3), which says what it is; its name has no extension to speak of.
  const auto dir = std::filesystem::temp_directory_path() / "gemmtune-results-dir-check";
  std::filesystem::create_directories(dir);
  std::string name = dir.string();
  EXPECT_EQ(check(name), "");
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace gemmtune::cli
