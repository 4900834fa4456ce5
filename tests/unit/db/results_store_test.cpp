// ResultsStore: the factory by extension, and CSV appends that are durable, write the header
// once and never mix environments.
#include "db/results_store.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <stdexcept>

#include "db/atomic_file.hpp"
#include "db/csv_results.hpp"
#include "finishes_within.hpp"
#include "held_append_lock.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

const Environment kEnv{{"PT_VERSION", "2.11.0"}, {"GEMMTUNE_VERSION", "0.1.0"}};

ResultEntry entry(std::string params, std::string solution, double time) {
  return ResultEntry{"GemmTunableOp_Half_NN", std::move(params), std::move(solution), time, {}};
}

TEST(ResultsStore, ChosenByExtension) {
  testing::TempDir dir;
  EXPECT_EQ(open_results_store(dir / "r.csv")->kind(), "csv");
  EXPECT_EQ(open_results_store(dir / "r.db")->kind(), "sqlite");
  EXPECT_EQ(open_results_store(dir / "r.sqlite")->kind(), "sqlite");
  EXPECT_EQ(open_results_store(dir / "r.SQLITE3")->kind(), "sqlite");
  try {
    open_results_store(dir / "r.txt");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("r.txt"), std::string::npos);
    EXPECT_NE(what.find(".csv"), std::string::npos);
    EXPECT_NE(what.find(".sqlite3"), std::string::npos);
  }
}

// A directory given as a results file is said to be one, whatever its name: not "unknown type"
// (no extension) nor SQLite's "unable to open database file" (named .db).
TEST(ResultsStore, ADirectoryIsSaidToBeOne) {
  testing::TempDir dir;
  for (const char* name : {"plain", "results.db", "results.csv"}) {
    std::filesystem::create_directory(dir / name);
    try {
      open_results_store(dir / name);
      FAIL() << name;
    } catch (const InputError& e) {
      EXPECT_NE(
          std::string(e.what()).find(std::string(name) + ": is a directory, not a results file"),
          std::string::npos)
          << e.what();
    }
  }
}

// holds(): what a tuning run asks before it measures a problem another run may have saved.
// Only a result under the same validators counts; a bad line that names the problem holds nothing.
TEST(ResultsStore, HoldsAnswersForOneProblemAndEnvironment) {
  testing::TempDir dir;
  const Environment other{{"PT_VERSION", "2.12.0"}};
  for (const char* name : {"h.csv", "h.db"}) {
    const auto path = dir / name;
    auto store = open_results_store(path);
    EXPECT_FALSE(store->holds(kEnv, "GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8")) << name;
    store->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));
    auto reader = open_results_store(path);  // another process's view
    EXPECT_TRUE(reader->holds(kEnv, "GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8")) << name;
    EXPECT_FALSE(reader->holds(kEnv, "GemmTunableOp_Half_NN", "nn_16_8_8_ld_16_8_16")) << name;
    EXPECT_FALSE(reader->holds(kEnv, "GemmTunableOp_Half_TN", "nn_8_8_8_ld_8_8_8")) << name;
    EXPECT_FALSE(reader->holds(other, "GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8")) << name;
  }
  testing::write_text(dir / "h.csv",
                      testing::read_text(dir / "h.csv") +
                          "GemmTunableOp_Half_NN,nn_24_8_8_ld_24_8_24,Default,fast\n");
  EXPECT_FALSE(open_results_store(dir / "h.csv")
                   ->holds(kEnv, "GemmTunableOp_Half_NN", "nn_24_8_8_ld_24_8_24"));
  // A line that begins with a byte-order mark, which the parser skips.
  testing::write_text(dir / "h.csv", testing::read_text(dir / "h.csv") +
                                         "\xEF\xBB\xBFGemmTunableOp_Half_NN,nn_32_8_8_ld_32_8_32,"
                                         "Default,0.5\n");
  EXPECT_TRUE(open_results_store(dir / "h.csv")
                  ->holds(kEnv, "GemmTunableOp_Half_NN", "nn_32_8_8_ld_32_8_32"));
}

TEST(CsvStore, AppendWritesTheHeaderOnceAndEachLineDurably) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  {
    auto store = open_results_store(path);
    store->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));
  }
  {
    // A fresh process (store object) appends to the same file after checking its validators.
    auto store = open_results_store(path);
    store->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
    store->record_run({});  // CSV: nowhere to record, no effect
  }
  EXPECT_EQ(testing::read_text(path),
            "Validator,PT_VERSION,2.11.0\n"
            "Validator,GEMMTUNE_VERSION,0.1.0\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n"
            "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25\n");
  const auto tables = open_results_store(path)->load();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].entries.size(), 2u);
  EXPECT_EQ(tables[0].environment, kEnv);
}

// Several processes append to one file, each through its own store; the file must end with one
// header and every line.
void append_from_several_processes(const std::filesystem::path& path) {
  constexpr int kProcesses = 4, kEach = 10;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        auto store = open_results_store(path);
        for (int i = 0; i < kEach; ++i) {
          const auto n = 8 * (p * kEach + i + 1);
          store->append(kEnv, entry("nn_" + std::to_string(n) + "_8_8_ld_" + std::to_string(n) +
                                        "_8_" + std::to_string(n),
                                    "Default", 0.5));
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Diagnostics d;
  const auto table = read_results_csv(path, d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  EXPECT_EQ(table.environment.entries(), kEnv.entries());
  EXPECT_EQ(table.entries.size(), static_cast<std::size_t>(kProcesses * kEach));
  EXPECT_EQ(testing::read_text(path).rfind("Validator,", 0), 0u);
}

TEST(CsvStore, SeveralProcessesStartingOnANewFileWriteOneHeader) {
  testing::TempDir dir;
  append_from_several_processes(dir / "shared.csv");
}

TEST(CsvStore, SeveralProcessesStartingOnAnEmptyFileWriteOneHeaderAndKeepEveryLine) {
  testing::TempDir dir;
  testing::write_text(dir / "shared.csv", "");  // touched: holds nothing
  append_from_several_processes(dir / "shared.csv");
}

// Two processes find one file empty. The first, holding the append lock, writes the header and its
// line; the second must check the file only once it has the lock, then find that header and add
// its line below — not write a second header, nor replace the file and the first one's line.
TEST(CsvStore, AnAppenderFindsTheHeaderAnotherWroteWhileItWaited) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  testing::write_text(path, "");  // touched: holds nothing
  const std::string header = format_validator_lines(kEnv);
  const std::string first = "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
  {
    testing::HeldAppendLock first_appender(path);
    auto appending = std::async(std::launch::async, [&] {
      open_results_store(path)->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
    });
    testing::wait_briefly(appending);
    write_file_atomically(path, header + first);  // what the first appender's plan replaces it with
    first_appender.release();
    appending.get();
  }
  EXPECT_EQ(testing::read_text(path),
            header + first + "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25\n");
}

TEST(CsvStore, AppendToAFileOfAnotherEnvironmentIsRefused) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  testing::write_text(
      path, "Validator,PT_VERSION,2.10.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n");
  auto store = open_results_store(path);
  try {
    store->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("another environment"), std::string::npos) << what;
    EXPECT_NE(what.find("PT_VERSION: file '2.10.0', this run '2.11.0'"), std::string::npos) << what;
    EXPECT_NE(what.find("GEMMTUNE_VERSION: file lacks it, this run '0.1.0'"), std::string::npos)
        << what;
  }
  EXPECT_EQ(testing::read_text(path),
            "Validator,PT_VERSION,2.10.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n");
}

// A file put in place of the one checked (db convert --force, a mv) is checked again: no result
// goes under another file's validators, nor into a new file without a header.
TEST(CsvStore, AFileReplacedAfterItsHeaderWasCheckedIsCheckedAgain) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  auto store = open_results_store(path);
  store->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));  // checked: this environment
  const std::string other =
      "Validator,PT_VERSION,2.10.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
  write_file_atomically(path, other);  // replaced by another environment's file
  EXPECT_THROW(store->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25)), InputError);
  EXPECT_EQ(testing::read_text(path), other);
  // Moved away: the next append starts a new file with its header.
  std::filesystem::rename(path, dir / "moved.csv");
  store->append(kEnv, entry("nn_24_24_24_ld_24_24_24", "Default", 0.125));
  Diagnostics d;
  const auto table = read_results_csv(path, d);
  EXPECT_EQ(table.environment, kEnv);
  ASSERT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(table.entries[0].params_signature, "nn_24_24_24_ld_24_24_24");
  // And while it stays, appends go on to it.
  store->append(kEnv, entry("nn_32_32_32_ld_32_32_32", "Default", 0.0625));
  EXPECT_EQ(read_results_csv(path, d).entries.size(), 2u);
}

// `db convert --force` twice over the file a store checked: ext4 may give the second new file the
// first one's inode number, freed by the first replacement. The store must still tell it from the
// file it checked (a file of another environment, here) and check it again, refusing it. Replaced
// until the inode number comes back, or twenty times: where it never does (the store holds the
// file it checked open, so its number stays taken), the refusal is checked all the same.
TEST(CsvStore, AFileThatGotTheCheckedFilesInodeNumberIsCheckedAgain) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  auto store = open_results_store(path);
  store->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));  // checked: this environment
  const auto checked = identity_of(path);
  const std::string other =
      "Validator,PT_VERSION,2.10.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
  for (int replaced = 0; replaced < 20; ++replaced) {
    write_file_atomically(path, other);
    if (identity_of(path) == checked) break;
  }
  const std::string before = testing::read_text(path);
  EXPECT_THROW(store->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25)), InputError);
  EXPECT_EQ(testing::read_text(path), before);
}

// Another program appends a last line without its newline to the file a store checked; the
// store's next append starts a new line, so that neither is glued onto the other.
TEST(CsvStore, AnAppendAfterAnotherProgramsUnfinishedLineStartsANewLine) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  auto store = open_results_store(path);
  store->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));  // checked: the fast path next
  const std::string theirs = "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25";
  testing::write_text(path, testing::read_text(path) + theirs);
  store->append(kEnv, entry("nn_24_24_24_ld_24_24_24", "Default", 0.125));
  EXPECT_EQ(testing::read_text(path),
            "Validator,PT_VERSION,2.11.0\n"
            "Validator,GEMMTUNE_VERSION,0.1.0\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n" +
                theirs + "\nGemmTunableOp_Half_NN,nn_24_24_24_ld_24_24_24,Default,0.125\n");
  Diagnostics d;
  EXPECT_EQ(read_results_csv(path, d).entries.size(), 3u);
  EXPECT_TRUE(d.empty()) << d.format_all();
}

// `gemmtune db merge out.csv ...` where out.csv is a link to no file yet: the update creates the
// file the link points to (it used to loop forever; run in a child process, so that a test of
// such a bug fails instead of hanging).
TEST(CsvStore, UpdateThroughALinkToNoFileYetCreatesThatFile) {
  testing::TempDir dir;
  const auto path = dir / "out.csv";
  std::filesystem::create_symlink("nowhere.csv", path);
  const auto ended = testing::finishes_within(std::chrono::seconds(10), [&] {
    Diagnostics diagnostics;
    open_results_store(path)->update(diagnostics, [](std::vector<ResultsTable> current,
                                                     const Diagnostics&) {
      if (!current.empty()) throw std::logic_error("the file was missing");
      return std::optional(ResultsTable{kEnv, {entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)}, {}});
    });
  });
  EXPECT_EQ(ended, testing::Ended::kReturned);
  EXPECT_TRUE(std::filesystem::is_symlink(path));
  EXPECT_EQ(testing::read_text(dir / "nowhere.csv"),
            "Validator,PT_VERSION,2.11.0\n"
            "Validator,GEMMTUNE_VERSION,0.1.0\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 2u) << "the link and its file; no temporary file";
}

TEST(CsvStore, AppendAfterATruncatedLineStartsANewLine) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  testing::write_text(
      path,
      "Validator,PT_VERSION,2.11.0\nValidator,GEMMTUNE_VERSION,0.1.0\nGemmTunableOp_Half_NN,nn_8");
  open_results_store(path)->append(kEnv, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
  Diagnostics d;
  const auto table = read_results_csv(path, d);
  EXPECT_EQ(table.entries.size(), 1u);
  EXPECT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.all()[0].line, 3);
}

TEST(CsvStore, WriteReplacesAtomicallyAndLoadStrictThrows) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  auto store = open_results_store(path);
  ResultsTable table{kEnv, {entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)}, {}};
  store->write(table);
  EXPECT_EQ(store->load().at(0).entries, table.entries);
  testing::write_text(path, "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,bad\n");
  EXPECT_THROW(store->load(), InputError);
  Diagnostics lenient;
  EXPECT_TRUE(store->load(lenient).at(0).entries.empty());
  EXPECT_EQ(lenient.error_count(), 1u);
}

// update() hands the producer what the file holds (no table for a missing file), writes what it
// returns, and leaves the file alone when it returns nothing.
TEST(CsvStore, UpdateWritesWhatTheProducerMakesOfTheFile) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  auto store = open_results_store(path);
  Diagnostics diagnostics;
  store->update(diagnostics, [](std::vector<ResultsTable> current, const Diagnostics&) {
    EXPECT_TRUE(current.empty());
    return std::optional<ResultsTable>();
  });
  EXPECT_FALSE(std::filesystem::exists(path));
  store->update(diagnostics, [](std::vector<ResultsTable>, const Diagnostics&) {
    return std::optional(ResultsTable{kEnv, {entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)}, {}});
  });
  store->update(diagnostics, [](std::vector<ResultsTable> current, const Diagnostics&) {
    EXPECT_EQ(current.size(), 1u);
    current.at(0).upsert(entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
    return std::optional(std::move(current.at(0)));
  });
  EXPECT_EQ(testing::read_text(path),
            "Validator,PT_VERSION,2.11.0\n"
            "Validator,GEMMTUNE_VERSION,0.1.0\n"
            "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n"
            "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25\n");
  EXPECT_TRUE(diagnostics.empty());
}

// A tuning run appends while the file is updated: the test plays that appender, holding the
// append lock when the update starts. The update must read the file once it has the lock, so the
// line appended meanwhile is in what it writes.
TEST(CsvStore, UpdateKeepsALineAppendedMeanwhile) {
  testing::TempDir dir;
  const auto path = dir / "r.csv";
  open_results_store(path)->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));
  const std::string appended = "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25\n";
  {
    testing::HeldAppendLock appender(path);
    auto updating = std::async(std::launch::async, [&] {
      Diagnostics diagnostics;
      open_results_store(path)->update(
          diagnostics, [](std::vector<ResultsTable> current, const Diagnostics&) {
            current.at(0).upsert(entry("nn_24_24_24_ld_24_24_24", "Default", 0.75));
            return std::optional(std::move(current.at(0)));
          });
    });
    testing::wait_briefly(updating);
    EXPECT_TRUE(appender.append(appended));
    appender.release();
    updating.get();
  }
  const auto tables = open_results_store(path)->load();
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].entries.size(), 3u);
  EXPECT_EQ(tables[0].entries[1], entry("nn_16_16_16_ld_16_16_16", "Default", 0.25));
}

// The empty-file rule: a table with no validators, no entries and no bad lines holds nothing.
TEST(ResultsStore, HoldsNothingMeansNoValidatorsNoEntriesNoBadLines) {
  Diagnostics clean;
  Diagnostics bad;
  bad.error("r.csv", 1, "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,1e999", "out of range");
  EXPECT_TRUE(holds_nothing(ResultsTable{}, clean));
  EXPECT_FALSE(holds_nothing(ResultsTable{}, bad));
  EXPECT_FALSE(holds_nothing(ResultsTable{kEnv, {}, {}}, clean));
  EXPECT_FALSE(
      holds_nothing(ResultsTable{{}, {entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)}, {}}, clean));
}

// A file that holds nothing (blank, a BOM alone) is replaced by the first append, as a missing
// one is; a file with bad lines is refused and left as it was.
TEST(CsvStore, AppendReplacesAFileThatHoldsNothingButNotOneWithBadLines) {
  testing::TempDir dir;
  const std::string expected =
      "Validator,PT_VERSION,2.11.0\n"
      "Validator,GEMMTUNE_VERSION,0.1.0\n"
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
  for (const std::string blank : {"", "\n", "\xEF\xBB\xBF", " \r\n\n", "\xEF\xBB\xBF\n  "}) {
    const auto path = dir / "blank.csv";
    testing::write_text(path, blank);
    open_results_store(path)->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));
    EXPECT_EQ(testing::read_text(path), expected) << ::testing::PrintToString(blank);
  }
  const auto path = dir / "bad.csv";
  const std::string bad = "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,1e999\n";
  testing::write_text(path, bad);
  EXPECT_THROW(open_results_store(path)->append(kEnv, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)),
               InputError);
  EXPECT_EQ(testing::read_text(path), bad);
}

TEST(ResultsStore, TimestampsAreUtcIso8601) {
  EXPECT_EQ(format_timestamp(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace gemmtune
