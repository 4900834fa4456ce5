// The db subcommands through the gemmtune executable, where what matters is the exit code and
// what is left on disk: merging into a blank output, merging into an output another process
// appends to meanwhile, converting from a misspelt source, showing a file that is no database.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <string>

#include "db/results_store.hpp"
#include "db/sqlite_handle.hpp"
#include "held_append_lock.hpp"
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

std::future<int> gemmtune_in_background(const std::filesystem::path& dir, const std::string& args) {
  return std::async(std::launch::async, [=] { return gemmtune(dir, args); });
}

constexpr std::string_view kHeader = "Validator,PT_VERSION,2.11.0\n";
constexpr std::string_view kKept = "GemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
constexpr std::string_view kAppended = "GemmTunableOp_float_NN,nn_16_8_8_ld_16_8_16,Default,0.25\n";
constexpr std::string_view kMerged = "GemmTunableOp_float_NN,nn_24_8_8_ld_24_8_24,Default,0.75\n";

// A tuning run appends to the output of `db merge OUT OUT IN` while the merge runs. The test plays
// that appender: it holds the append lock when the merge starts and appends its line before
// letting go. The merge must read the output only once it has the lock, and replace it before
// letting go — not replace it with what it read before the line came, losing the line.
TEST(DbMerge, KeepsALineAppendedToTheOutputMeanwhile) {
  testing::TempDir dir;
  testing::write_text(dir / "out.csv", std::string(kHeader) + std::string(kKept));
  testing::write_text(dir / "in.csv", std::string(kHeader) + std::string(kMerged));
  {
    testing::HeldAppendLock appender(dir / "out.csv");
    auto merging = gemmtune_in_background(dir.path(), "db merge out.csv out.csv in.csv");
    testing::wait_briefly(merging);
    EXPECT_TRUE(appender.append(kAppended));
    appender.release();
    EXPECT_EQ(merging.get(), 0);
  }
  EXPECT_EQ(testing::read_text(dir / "out.csv"), std::string(kHeader) + std::string(kKept) +
                                                     std::string(kAppended) + std::string(kMerged));
}

// The same with a database: a result committed between the merge's read of the output and its
// write must survive the write, which replaces the environment's results. The test holds the
// database's write lock while the merge starts and commits a result before letting go.
TEST(DbMerge, KeepsAResultCommittedToADatabaseOutputMeanwhile) {
  testing::TempDir dir;
  ResultsTable kept;
  kept.environment.set("PT_VERSION", "2.11.0");
  kept.upsert({"GemmTunableOp_float_NN", "nn_8_8_8_ld_8_8_8", "Default", 0.5, {}});
  open_results_store(dir / "out.db")->write(kept);
  testing::write_text(dir / "in.csv", std::string(kHeader) + std::string(kMerged));
  {
    SqliteDatabase appender(dir / "out.db");
    appender.exec("BEGIN IMMEDIATE");
    auto merging = gemmtune_in_background(dir.path(), "db merge out.db out.db in.csv");
    testing::wait_briefly(merging);
    appender.exec(
        "INSERT INTO results(environment_id, op_signature, params_signature, solution, time_ms, "
        "time_text, updated_at) SELECT id, 'GemmTunableOp_float_NN', 'nn_16_8_8_ld_16_8_16', "
        "'Default', 0.25, '0.25', '' FROM environments");
    appender.exec("COMMIT");
    EXPECT_EQ(merging.get(), 0);
  }
  const auto tables = open_results_store(dir / "out.db")->load();
  ASSERT_EQ(tables.size(), 1u);
  std::vector<std::string> params;
  for (const auto& e : tables[0].entries) params.push_back(e.params_signature);
  EXPECT_EQ(params, (std::vector<std::string>{"nn_8_8_8_ld_8_8_8", "nn_16_8_8_ld_16_8_16",
                                              "nn_24_8_8_ld_24_8_24"}));
}

// A database keeps each environment's results in a table of its own, so a merge into one keeps
// every input: each environment's inputs go into that environment's table, and the output's
// other environments are left as they were. A CSV output, which holds one, refuses the others.
TEST(DbMerge, IntoADatabaseEachEnvironmentKeepsItsOwnResults) {
  testing::TempDir dir;
  ResultsTable first, second;
  first.environment.set("PT_VERSION", "2.11.0");
  first.upsert({"GemmTunableOp_float_NN", "nn_8_8_8_ld_8_8_8", "Default", 0.5, {}});
  second.environment.set("PT_VERSION", "2.12.0");
  second.upsert({"GemmTunableOp_float_NN", "nn_32_8_8_ld_32_8_32", "Default", 0.5, {}});
  open_results_store(dir / "out.db")->write(first);
  open_results_store(dir / "out.db")->write(second);
  testing::write_text(dir / "in11.csv", std::string(kHeader) + std::string(kMerged));
  testing::write_text(dir / "in12.csv", "Validator,PT_VERSION,2.12.0\n" + std::string(kAppended));
  testing::write_text(dir / "in13.csv", "Validator,PT_VERSION,2.13.0\n" + std::string(kKept));

  EXPECT_EQ(gemmtune(dir.path(), "db merge out.db in12.csv in13.csv in11.csv"), 0);
  const auto tables = open_results_store(dir / "out.db")->load();
  ASSERT_EQ(tables.size(), 3u);
  std::map<std::string, std::vector<std::string>> params;
  for (const auto& t : tables) {
    for (const auto& e : t.entries)
      params[std::string(*t.environment.get("PT_VERSION"))].push_back(e.params_signature);
  }
  EXPECT_EQ(params["2.11.0"],
            (std::vector<std::string>{"nn_8_8_8_ld_8_8_8", "nn_24_8_8_ld_24_8_24"}));
  EXPECT_EQ(params["2.12.0"],
            (std::vector<std::string>{"nn_32_8_8_ld_32_8_32", "nn_16_8_8_ld_16_8_16"}));
  EXPECT_EQ(params["2.13.0"], (std::vector<std::string>{"nn_8_8_8_ld_8_8_8"}));

  // --ignore-validators: into the first environment alone.
  testing::write_text(
      dir / "in99.csv",
      "Validator,PT_VERSION,2.99.0\n" + std::string("GemmTunableOp_float_NN,nn_40_8_8_ld_40_8_40,"
                                                    "Default,0.125\n"));
  EXPECT_EQ(gemmtune(dir.path(), "db merge out.db in99.csv --ignore-validators"), 0);
  std::map<std::string, std::size_t> sizes;
  for (const auto& t : open_results_store(dir / "out.db")->load()) {
    sizes[std::string(*t.environment.get("PT_VERSION"))] = t.entries.size();
  }
  EXPECT_EQ(sizes,
            (std::map<std::string, std::size_t>{{"2.11.0", 3}, {"2.12.0", 2}, {"2.13.0", 1}}));

  // Inputs that hold nothing create no database.
  testing::write_text(dir / "blank.csv", "");
  EXPECT_EQ(gemmtune(dir.path(), "db merge new.db blank.csv"), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "new.db"));

  EXPECT_EQ(gemmtune(dir.path(), "db merge out.csv in11.csv in12.csv"), 4);
  EXPECT_EQ(testing::read_text(dir / "out.csv"), std::string(kHeader) + std::string(kMerged));
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
