// The db subcommands through the gemmtune executable, where what matters is the exit code and
// what is left on disk: merging into a blank output, converting from a misspelt source, showing a
// file that is no database.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"

namespace gemmtune {
namespace {

// Runs `gemmtune ARGS` in `dir`, output discarded; returns its exit code.
int gemmtune(const std::filesystem::path& dir, const std::string& args) {
  const std::string command = "cd '" + dir.string() + "' && GEMMTUNE_BACKEND=cpu '" +
                              GEMMTUNE_EXECUTABLE + "' " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// An output that exists but holds nothing is no source: every input is merged into it.
TEST(DbMerge, IntoABlankOutputMergesEveryInput) {
  testing::TempDir dir;
  const auto base = testing::fixture("mistral_bf16_results.csv");
  for (const std::string blank : {"", "\n", "\xEF\xBB\xBF"}) {
    testing::write_text(dir / "m.csv", blank);
    EXPECT_EQ(gemmtune(dir.path(), "db merge m.csv '" + base.string() + "'"), 0)
        << ::testing::PrintToString(blank);
    EXPECT_EQ(testing::read_text(dir / "m.csv"), testing::read_text(base));
  }
}

// A misspelt source is bad input (3), and nothing is created: a corrected rerun is not refused.
TEST(DbConvert, AMissingSourceCreatesNothing) {
  testing::TempDir dir;
  EXPECT_EQ(gemmtune(dir.path(), "db convert typo.db out.csv"), 3);
  EXPECT_EQ(gemmtune(dir.path(), "db convert missing.csv out1.db"), 3);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

// A CSV file named .db is bad input (3), not an internal error (1).
TEST(DbShow, AFileThatIsNotADatabaseIsBadInput) {
  testing::TempDir dir;
  std::filesystem::copy_file(testing::fixture("mistral_bf16_results.csv"), dir / "notdb.db");
  EXPECT_EQ(gemmtune(dir.path(), "db show notdb.db"), 3);
}

}  // namespace
}  // namespace gemmtune
