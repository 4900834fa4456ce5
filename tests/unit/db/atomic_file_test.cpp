// Atomic writes: a failure mid-write leaves the old file intact and no temp file behind; durable
// appends add to the end, take turns under the append lock, and take back only their own bytes;
// a rewrite reads and replaces a file under that lock, so no append between is lost.
#include "db/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "finishes_within.hpp"
#include "held_append_lock.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// Limits the size of files this process may write (a write past it fails, with SIGXFSZ ignored,
// rather than killing the process) for as long as it lives.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    EXPECT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit_), 0);
    rlimit limit = old_limit_;
    limit.rlim_cur = bytes;
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_limit_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_limit_{};
  void (*old_handler_)(int);
};

std::size_t count_files(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesContent) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  write_file_atomically(file, "old\n");
  EXPECT_EQ(testing::read_text(file), "old\n");
  write_file_atomically(file, "new\n");
  EXPECT_EQ(testing::read_text(file), "new\n");
  EXPECT_EQ(count_files(dir.path()), 1u);
}

// A results file that is a link (shared/results.csv behind app/results.csv) stays one file: the
// file it names is replaced, and the link still points to it.
TEST(AtomicFile, ReplacesTheFileALinkNamesNotTheLink) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "shared");
  std::filesystem::create_directories(dir / "app");
  write_file_atomically(dir / "shared" / "results.csv", "old\n");
  std::filesystem::create_symlink("../shared/results.csv", dir / "app" / "results.csv");
  write_file_atomically(dir / "app" / "results.csv", "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "app" / "results.csv"));
  EXPECT_EQ(testing::read_text(dir / "shared" / "results.csv"), "new\n");
  rewrite_file_atomically(
      dir / "app" / "results.csv",
      [](std::optional<std::string_view> content) -> std::optional<std::string> {
        return std::string(content.value_or("")) + "more\n";
      });
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "app" / "results.csv"));
  EXPECT_EQ(testing::read_text(dir / "shared" / "results.csv"), "new\nmore\n");
  EXPECT_EQ(count_files(dir / "app"), 1u);
  EXPECT_EQ(count_files(dir / "shared"), 1u);
}

TEST(AtomicFile, FailureMidWriteLeavesOldFileIntactAndRemovesTemp) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "Validator,PT_VERSION,2.11.0\nold,entry\n");
  EXPECT_THROW(write_file_atomically(file,
                                     [](const ChunkWriter& write) {
                                       write("Validator,PT_VERSION,2.12.0\n");
                                       write("half a li");
                                       throw std::runtime_error("disk full, say");
                                     }),
               std::runtime_error);
  EXPECT_EQ(testing::read_text(file), "Validator,PT_VERSION,2.11.0\nold,entry\n");
  EXPECT_EQ(count_files(dir.path()), 1u) << "the temporary file must be removed";
}

TEST(AtomicFile, FailureWhenNoOldFileLeavesNothing) {
  testing::TempDir dir;
  const auto file = dir / "new.csv";
  EXPECT_THROW(write_file_atomically(file,
                                     [](const ChunkWriter& write) {
                                       write("partial");
                                       throw std::runtime_error("killed");
                                     }),
               std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(count_files(dir.path()), 0u);
}

// A writer killed between creating its temporary file and the rename leaves it behind; the next
// writer of the same file removes it once it is an hour old and its process is gone, and leaves
// alone a younger one (a writer on another machine), one whose process still runs (whose name it
// then does not take) and a file that is only named alike.
TEST(AtomicFile, TheNextWriterRemovesLeftoverTemporaryFiles) {
  testing::TempDir dir;
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(::waitpid(gone, nullptr, 0), gone);
  const auto leftover = [&](long pid, const std::string& suffix, std::chrono::hours age) {
    const auto path = dir / fmt::format(".res.csv.tmp.{}.0{}", pid, suffix);
    testing::write_text(path, "partial");
    std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - age);
    return path;
  };
  const auto old_gone = leftover(gone, "", std::chrono::hours(2));
  const auto old_journal = leftover(gone, "-journal", std::chrono::hours(2));
  const auto young_gone = leftover(gone, ".x", std::chrono::hours(0));
  // This process's own id, counter 0: the name the write would take first is taken.
  const auto old_running = leftover(::getpid(), "", std::chrono::hours(2));
  const auto users_file = leftover(gone, ".notes.txt", std::chrono::hours(2));
  const auto other_file = dir / fmt::format(".other.csv.tmp.{}.0", gone);
  testing::write_text(other_file, "partial");
  std::filesystem::last_write_time(
      other_file, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));

  write_file_atomically(dir / "res.csv", "new\n");
  EXPECT_EQ(testing::read_text(dir / "res.csv"), "new\n");
  EXPECT_FALSE(std::filesystem::exists(old_gone));
  EXPECT_FALSE(std::filesystem::exists(old_journal));
  EXPECT_TRUE(std::filesystem::exists(young_gone));
  EXPECT_TRUE(std::filesystem::exists(old_running));
  EXPECT_TRUE(std::filesystem::exists(users_file));
  EXPECT_TRUE(std::filesystem::exists(other_file));
}

TEST(AtomicFile, KeepsPermissionBits) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "x\n");
  ::chmod(file.c_str(), 0640);
  write_file_atomically(file, "y\n");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicFile, MissingDirectoryIsAnError) {
  testing::TempDir dir;
  EXPECT_THROW(write_file_atomically(dir / "no" / "such" / "f.csv", "x"), std::exception);
}

TEST(AtomicFile, CreateOnlyWhenAbsent) {
  testing::TempDir dir;
  const auto file = dir / "new.csv";
  EXPECT_TRUE(create_file_atomically(file, "first\n"));
  EXPECT_FALSE(create_file_atomically(file, "second\n"));
  EXPECT_EQ(testing::read_text(file), "first\n");
  EXPECT_EQ(count_files(dir.path()), 1u);
}

// A link to a file not made yet (`ln -s nowhere.csv out.csv`) is written through, as open(2) with
// O_CREAT writes through it: the file it points to is made, and the link stays; by creating,
// replacing and rewriting. The rewrite runs in a child process: it used to loop forever, link(2)
// finding the link in the way at every attempt.
TEST(AtomicFile, WritesThroughALinkToNoFileYet) {
  testing::TempDir dir;
  std::filesystem::create_symlink("nowhere.csv", dir / "out.csv");
  EXPECT_TRUE(create_file_atomically(dir / "out.csv", "created\n"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "out.csv"));
  EXPECT_EQ(testing::read_text(dir / "nowhere.csv"), "created\n");

  std::filesystem::create_symlink("sub/written.csv", dir / "written.csv");
  std::filesystem::create_directories(dir / "sub");
  write_file_atomically(dir / "written.csv", "written\n");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "written.csv"));
  EXPECT_EQ(testing::read_text(dir / "sub" / "written.csv"), "written\n");

  // A link to a link to no file: followed to the end.
  std::filesystem::create_symlink("second.csv", dir / "first.csv");
  std::filesystem::create_symlink(dir / "sub" / "rewritten.csv", dir / "second.csv");
  const auto ended = testing::finishes_within(std::chrono::seconds(10), [&] {
    rewrite_file_atomically(dir / "first.csv", [](std::optional<std::string_view> content) {
      return std::optional<std::string>(content ? "read\n" : "rewritten\n");
    });
  });
  EXPECT_EQ(ended, testing::Ended::kReturned);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "first.csv"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "second.csv"));
  EXPECT_EQ(testing::read_text(dir / "sub" / "rewritten.csv"), "rewritten\n");
  EXPECT_EQ(count_files(dir.path()), 6u) << "links, sub/ and nowhere.csv; no temporary file";
  EXPECT_EQ(count_files(dir / "sub"), 2u) << "no temporary file";
}

// A loop of links leads to no file: an InputError naming the path, from creating and from
// rewriting alike, not "it exists" (which sent the rewrite back to open it, forever).
TEST(AtomicFile, ALoopOfLinksIsAnErrorNamingThePath) {
  testing::TempDir dir;
  std::filesystem::create_symlink("b.csv", dir / "a.csv");
  std::filesystem::create_symlink("a.csv", dir / "b.csv");
  try {
    create_file_atomically(dir / "a.csv", "x\n");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "a.csv").string() + ": ", 0), 0u) << e.what();
  }
  const auto ended = testing::finishes_within(std::chrono::seconds(10), [&] {
    rewrite_file_atomically(dir / "a.csv", [](std::optional<std::string_view>) {
      return std::optional<std::string>("x\n");
    });
  });
  EXPECT_EQ(ended, testing::Ended::kInputError);
  EXPECT_EQ(count_files(dir.path()), 2u) << "no temporary file";
}

// An error writing the temporary file names the file the caller asked for (the user knows that
// name), with the temporary in brackets: "out.csv: ... (write failed, on its temporary file ...)".
TEST(AtomicFile, AFailedWriteNamesTheFileNotItsTemporary) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  const std::string content(100, 'x');
  const auto error_of = [](const std::function<void()>& call) -> std::string {
    try {
      call();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no InputError";
  };
  std::vector<std::string> errors;
  {
    // Checked once the limit is gone: test output written to a file would fail under it too.
    const FileSizeLimit limit(10);
    errors.push_back(error_of([&] { write_file_atomically(file, content); }));
    errors.push_back(error_of([&] { create_file_atomically(file, content); }));
  }
  for (const std::string& what : errors) {
    EXPECT_EQ(what.rfind(file.string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find("on its temporary file " + dir.path().string() + "/.results.csv.tmp."),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(count_files(dir.path()), 0u);
}

TEST(AppendDurably, CreatesThenAppends) {
  testing::TempDir dir;
  const auto file = dir / "log.csv";
  append_durably(file, "a\n");
  append_durably(file, "b\n");
  EXPECT_EQ(testing::read_text(file), "a\nb\n");
}

// A write that stops part-way (here: the process's file size limit) leaves the file as it was, not
// with a line cut short that could still parse as a result.
TEST(AppendDurably, AWriteThatFailsPartWayLeavesTheFileAsItWas) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  append_durably(file, "Validator,VERSION,1\n");
  const std::string before = testing::read_text(file);
  {
    const FileSizeLimit limit(before.size() + 10);
    EXPECT_THROW(append_durably(file, "GemmTunableOp_float_NN,nn_16_64_64_ld_16_64_16,X,0.0031\n"),
                 std::exception);
  }
  EXPECT_EQ(testing::read_text(file), before);
}

// Two processes append to one results file. One's write fails part-way and is taken back; the
// other's lines, appended after the first opened the file, must survive that. Appenders take
// turns (the append lock), and the failed one is taken back to the size it saw under the lock.
TEST(AppendDurably, AFailedWriteNeverTakesAnotherAppendersLines) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  append_durably(file, "Validator,VERSION,1\n");
  const std::string before = testing::read_text(file);
  const std::string other = "GemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8,Default,0.5\n";
  const std::string ours = "GemmTunableOp_float_NN,nn_16_64_64_ld_16_64_16,X,0.0031\n";
  {
    testing::HeldAppendLock other_appender(file);
    // Either line fits under the limit alone, not both: ours fails part-way after the other's.
    const FileSizeLimit limit(before.size() + other.size() + ours.size() - 1);
    auto appending = std::async(std::launch::async, [&] { append_durably(file, ours); });
    testing::wait_briefly(appending);
    EXPECT_TRUE(other_appender.append(other));
    other_appender.release();
    EXPECT_THROW(appending.get(), std::exception);
  }
  EXPECT_EQ(testing::read_text(file), before + other);
}

// An appender that waited for the lock while the file was replaced (a planning append writes a
// new file and renames it over) appends to the new file, not to the old one, which is gone.
TEST(AppendDurably, AnAppenderWaitingWhileTheFileIsReplacedAppendsToTheNewFile) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "");
  {
    testing::HeldAppendLock replacer(file);
    auto appending = std::async(std::launch::async, [&] { append_durably(file, "ours\n"); });
    testing::wait_briefly(appending);
    write_file_atomically(file, "Validator,VERSION,1\n");
    replacer.release();
    appending.get();
  }
  EXPECT_EQ(testing::read_text(file), "Validator,VERSION,1\nours\n");
}

// The planning form decides from the content as it stands under the lock, and may replace it.
TEST(AppendDurably, PlanSeesTheContentAndMayAppendOrReplace) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  append_durably(file, [](std::string_view content) {
    EXPECT_EQ(content, "");
    return AppendPlan{.append = {}, .replace_with = "header\nfirst\n"};
  });
  append_durably(file, [](std::string_view content) {
    EXPECT_EQ(content, "header\nfirst\n");
    return AppendPlan{.append = "second\n", .replace_with = std::nullopt};
  });
  EXPECT_THROW(
      append_durably(file,
                     [](std::string_view) -> AppendPlan { throw std::runtime_error("refused"); }),
      std::runtime_error);
  EXPECT_EQ(testing::read_text(file), "header\nfirst\nsecond\n");
  EXPECT_EQ(count_files(dir.path()), 1u);
}

// The rewrite sees the content (nullopt: no file) and may replace it, create it or leave it.
TEST(RewriteFileAtomically, SeesTheContentAndMayReplaceCreateOrLeaveIt) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  using Rewrite = std::optional<std::string>;
  rewrite_file_atomically(file, [](std::optional<std::string_view> content) {
    EXPECT_FALSE(content.has_value());
    return Rewrite{};
  });
  EXPECT_FALSE(std::filesystem::exists(file));
  rewrite_file_atomically(file, [](std::optional<std::string_view> content) {
    EXPECT_FALSE(content.has_value());
    return Rewrite{"first\n"};
  });
  rewrite_file_atomically(file, [](std::optional<std::string_view> content) {
    EXPECT_EQ(content, "first\n");
    return Rewrite{std::string(*content) + "second\n"};
  });
  rewrite_file_atomically(file, [](std::optional<std::string_view>) { return Rewrite{}; });
  EXPECT_THROW(rewrite_file_atomically(file,
                                       [](std::optional<std::string_view>) -> Rewrite {
                                         throw std::runtime_error("refused");
                                       }),
               std::runtime_error);
  EXPECT_EQ(testing::read_text(file), "first\nsecond\n");
  EXPECT_EQ(count_files(dir.path()), 1u);
}

// Another appender holds the lock when the rewrite starts and appends before letting go: the
// rewrite must read the file only then, and so keep that line.
TEST(RewriteFileAtomically, ReadsOnlyOnceItHoldsTheAppendLock) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "old\n");
  {
    testing::HeldAppendLock appender(file);
    auto rewriting = std::async(std::launch::async, [&] {
      rewrite_file_atomically(file, [](std::optional<std::string_view> content) {
        return std::optional<std::string>(std::string(content.value_or("")) + "rewritten\n");
      });
    });
    testing::wait_briefly(rewriting);
    EXPECT_TRUE(appender.append("appended\n"));
    appender.release();
    rewriting.get();
  }
  EXPECT_EQ(testing::read_text(file), "old\nappended\nrewritten\n");
}

// An appender that comes while the rewrite holds the lock waits, then appends to the new file.
TEST(RewriteFileAtomically, AnAppenderWaitingMeanwhileAppendsToTheNewFile) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "old\n");
  std::future<void> appending;
  rewrite_file_atomically(file, [&](std::optional<std::string_view>) {
    appending = std::async(std::launch::async, [&] { append_durably(file, "ours\n"); });
    testing::wait_briefly(appending);
    return std::optional<std::string>("new\n");
  });
  appending.get();
  EXPECT_EQ(testing::read_text(file), "new\nours\n");
}

// A file found missing is created only if still missing: where another writer (an appender with
// its header) created it meanwhile, the rewrite decides again from what that one wrote.
TEST(RewriteFileAtomically, AMissingFileCreatedMeanwhileIsReadAgain) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  int calls = 0;
  rewrite_file_atomically(file, [&](std::optional<std::string_view> content) {
    if (++calls == 1) {
      EXPECT_FALSE(content.has_value());
      EXPECT_TRUE(create_file_atomically(file, "header\ntheirs\n"));
      return std::optional<std::string>("header\nours\n");
    }
    return std::optional<std::string>(std::string(content.value_or("")) + "ours\n");
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(testing::read_text(file), "header\ntheirs\nours\n");
}

// Replacing a file needs the directory's permission, not the file's: a read-only file (whose
// lock is taken through a read-only descriptor) is replaced and keeps its mode.
TEST(RewriteFileAtomically, ReplacesAReadOnlyFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write any file";
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "old\n");
  ASSERT_EQ(::chmod(file.c_str(), 0444), 0);
  rewrite_file_atomically(file, [](std::optional<std::string_view> content) {
    return std::optional<std::string>(std::string(content.value_or("")) + "new\n");
  });
  EXPECT_EQ(testing::read_text(file), "old\nnew\n");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0444u);
}

// A file replaced by another writer at every attempt: a rewrite starts over each time (the file it
// waited for is gone), and gives up after kMaxWriteAttempts with an error naming the file, rather
// than keep going for as long as the other writer does. The test plays that writer: each new file
// is locked before it takes the name, so the rewrite always waits on a file about to be replaced.
TEST(RewriteFileAtomically, GivesUpOnAFileReplacedAtEveryAttempt) {
  testing::TempDir dir;
  const auto file = dir / "results.csv";
  testing::write_text(file, "0\n");
  auto held = std::make_unique<testing::HeldAppendLock>(file);
  auto rewriting = std::async(std::launch::async, [&] {
    rewrite_file_atomically(file, [](std::optional<std::string_view>) {
      return std::optional<std::string>("rewritten\n");
    });
  });
  // Until the rewrite gives up, or for a minute (far more attempts than it may make, however
  // slowly a loaded machine runs either side): one that does not give up then succeeds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int round = 1; std::chrono::steady_clock::now() < deadline; ++round) {
    if (rewriting.wait_for(std::chrono::milliseconds(2)) == std::future_status::ready) break;
    const auto next = dir / fmt::format("next{}", round);
    testing::write_text(next, fmt::format("{}\n", round));
    auto next_held = std::make_unique<testing::HeldAppendLock>(next);
    std::filesystem::rename(next, file);
    held = std::move(next_held);  // lets go of the replaced file's lock
  }
  held.reset();
  try {
    rewriting.get();
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file.string() + ": gave up after", 0), 0u) << what;
  }
  EXPECT_NE(testing::read_text(file), "rewritten\n");
}

}  // namespace
}  // namespace gemmtune
