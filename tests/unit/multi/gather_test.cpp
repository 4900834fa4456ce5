// Gathering per-device files: every device's entries end in _full0 and its copies (one for every
// device of the run), an earlier gathered file and entries added to a copy are kept, another
// environment's file is left out with a note, duplicates keep the faster time.
#include "drivers/multi/gather.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <future>

#include "db/csv_results.hpp"
#include "db/results_store.hpp"
#include "held_append_lock.hpp"
#include "temp_dir.hpp"

namespace gemmtune {
namespace {

const Environment kHere{{"GEMMTUNE_VERSION", "0.1.0"}, {"GEMMTUNE_BACKEND", "cpu"}};

void write_results(const std::filesystem::path& path, const Environment& env,
                   std::vector<ResultEntry> entries) {
  ResultsTable table;
  table.environment = env;
  table.entries = std::move(entries);
  open_results_store(path)->write(table);
}

ResultEntry entry(int m, double ms) {
  const std::string s = std::to_string(m);
  return {"GemmTunableOp_float_NN", "nn_" + s + "_8_8_ld_" + s + "_8_" + s, "Default", ms, {}};
}

std::vector<ResultEntry> load(const std::filesystem::path& path) {
  auto tables = open_results_store(path)->load();
  EXPECT_EQ(tables.size(), 1u);
  return tables.empty() ? std::vector<ResultEntry>{} : tables.front().entries;
}

TEST(Gather, EveryDeviceIntoFull0AndOneCopyPerDevice) {
  testing::TempDir dir;
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1), entry(16, 0.2)});
  write_results(dir / "r1.csv", kHere, {entry(24, 0.3)});
  write_results(dir / "r3.csv", kHere, {entry(32, 0.4), entry(8, 0.05)});
  const OutputNames names(dir / "r0.csv", Shard{});
  const auto report = gather_device_files(names, kHere);
  EXPECT_TRUE(report.notes.empty());
  EXPECT_EQ(report.entries, 4u);
  ASSERT_EQ(report.written.size(), 3u);
  EXPECT_EQ(report.written[0], (dir / "r_full0.csv").string());
  EXPECT_EQ(report.written[1], (dir / "r_full1.csv").string());
  EXPECT_EQ(report.written[2], (dir / "r_full3.csv").string());
  const auto gathered = load(dir / "r_full0.csv");
  ASSERT_EQ(gathered.size(), 4u);
  EXPECT_EQ(gathered[0].time_ms, 0.05);  // the faster of two devices' results
  EXPECT_EQ(testing::read_text(dir / "r_full0.csv"), testing::read_text(dir / "r_full3.csv"));
}

// A device of the run that tuned nothing still gets its copy, and what was added to an existing
// copy (by the process that loads it) is gathered, not overwritten.
TEST(Gather, EveryRunDeviceGetsACopyAndCopiesAreSources) {
  testing::TempDir dir;
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1)});
  write_results(dir / "r_full1.csv", kHere, {entry(8, 0.1), entry(40, 0.7)});  // 40: added there
  const auto report =
      gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere, std::vector<int>{0, 1, 2});
  EXPECT_EQ(report.entries, 2u);
  ASSERT_EQ(report.written.size(), 3u);
  EXPECT_EQ(report.written[2], (dir / "r_full2.csv").string());
  EXPECT_EQ(load(dir / "r_full0.csv").size(), 2u);
  EXPECT_EQ(testing::read_text(dir / "r_full0.csv"), testing::read_text(dir / "r_full1.csv"));
  EXPECT_EQ(testing::read_text(dir / "r_full0.csv"), testing::read_text(dir / "r_full2.csv"));
}

TEST(Gather, KeepsAnEarlierGatheredFile) {
  testing::TempDir dir;
  write_results(dir / "r_full0.csv", kHere, {entry(64, 1.0)});
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1)});
  const auto report = gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere);
  EXPECT_EQ(report.entries, 2u);
  EXPECT_EQ(load(dir / "r_full0.csv").size(), 2u);
}

TEST(Gather, LeavesOutAnotherEnvironmentWithANote) {
  testing::TempDir dir;
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1)});
  write_results(dir / "r1.csv",
                Environment{{"GEMMTUNE_VERSION", "0.0.9"}, {"GEMMTUNE_BACKEND", "cpu"}},
                {entry(16, 0.1)});
  const auto report = gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere);
  EXPECT_EQ(report.entries, 1u);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("r1.csv"), std::string::npos) << report.notes[0];
  EXPECT_NE(report.notes[0].find("GEMMTUNE_VERSION"), std::string::npos) << report.notes[0];
}

// Nothing on disk is lost: a copy from another environment (holding an entry found nowhere
// else) and a gathered file with a bad line are left exactly as they were, each named in a note;
// a copy that was read whole is still written, and a blank copy is replaced, not refused.
TEST(Gather, NeverRewritesAFileItRefusedOrReadWithBadLines) {
  testing::TempDir dir;
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1)});
  write_results(dir / "r_full0.csv", kHere, {entry(64, 1.0)});
  std::ofstream(dir / "r_full0.csv", std::ios::app)
      << "GemmTunableOp_float_NN,nn_72_8_8_ld_72_8_72,Default,1e999\n";
  write_results(dir / "r_full1.csv",
                Environment{{"GEMMTUNE_VERSION", "0.0.9"}, {"GEMMTUNE_BACKEND", "cpu"}},
                {entry(99, 0.5)});
  testing::write_text(dir / "r_full3.csv", "\n");
  const std::string full0 = testing::read_text(dir / "r_full0.csv");
  const std::string full1 = testing::read_text(dir / "r_full1.csv");

  const auto report = gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere,
                                          std::vector<int>{0, 1, 2, 3});
  EXPECT_EQ(testing::read_text(dir / "r_full0.csv"), full0);
  EXPECT_EQ(testing::read_text(dir / "r_full1.csv"), full1);
  const auto noted = [&](std::string_view file) {
    for (const auto& note : report.notes) {
      if (note.find(file) != std::string::npos && note.find("left as it is") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(noted("r_full0.csv")) << ::testing::PrintToString(report.notes);
  EXPECT_TRUE(noted("r_full1.csv")) << ::testing::PrintToString(report.notes);
  EXPECT_FALSE(noted("r_full3.csv")) << ::testing::PrintToString(report.notes);
  ASSERT_EQ(report.written.size(), 2u);
  EXPECT_EQ(report.written[0], (dir / "r_full2.csv").string());
  EXPECT_EQ(report.written[1], (dir / "r_full3.csv").string());
  EXPECT_EQ(load(dir / "r_full2.csv").size(), 2u);  // r0.csv's and r_full0.csv's good entry
  EXPECT_EQ(testing::read_text(dir / "r_full2.csv"), testing::read_text(dir / "r_full3.csv"));
}

// A process that loads its copy (a tuning run, the library) appends to it while the run gathers.
// The test plays that appender: it holds the copy's append lock when gathering starts and appends
// its line before letting go. Gathering must read the copy again once it has the lock and replace
// it before letting go, so the line is in the new copy — not in the old one, renamed over and lost.
TEST(Gather, KeepsALineAppendedToACopyMeanwhile) {
  testing::TempDir dir;
  write_results(dir / "r0.csv", kHere, {entry(8, 0.1)});
  write_results(dir / "r_full1.csv", kHere, {entry(8, 0.1)});
  {
    testing::HeldAppendLock appender(dir / "r_full1.csv");
    auto gathering = std::async(std::launch::async, [&] {
      return gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere, {0, 1});
    });
    testing::wait_briefly(gathering);
    EXPECT_TRUE(appender.append(format_result_line(entry(40, 0.7), "0.7")));
    appender.release();
    const auto report = gathering.get();
    EXPECT_EQ(report.written.size(), 2u);
    EXPECT_EQ(report.entries, 2u);
  }
  const auto copy = load(dir / "r_full1.csv");
  ASSERT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy[1], entry(40, 0.7));
}

TEST(Gather, NothingOnDiskWritesNothing) {
  testing::TempDir dir;
  const auto report = gather_device_files(OutputNames(dir / "r0.csv", Shard{}), kHere);
  EXPECT_TRUE(report.written.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "r_full0.csv"));
}

}  // namespace
}  // namespace gemmtune
