// create_file_atomically on a file system with neither hard links nor renameat2's
// RENAME_NOREPLACE, where it creates the file itself (O_EXCL) and writes it under the append
// lock: run under tests/support/no_hard_links_shim.c (GEMMTUNE_SHIM_NO_RENAMEAT2=1), whose
// interloper plays a second writer coming between the file's creation and its lock.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "db/atomic_file.hpp"
#include "tests/unit/db/temp_dir.hpp"

namespace gemmtune::testing {
namespace {

class NoHardLinks : public ::testing::Test {
 protected:
  void SetUp() override {
    // Without the shim this would test link(2), which the other tests of atomic_file do.
    write_text(dir / "probe", "");
    if (::link((dir / "probe").c_str(), (dir / "probe.link").c_str()) == 0 || errno != EPERM) {
      GTEST_SKIP() << "not run under no_hard_links_shim (LD_PRELOAD)";
    }
    if (std::getenv("GEMMTUNE_SHIM_NO_RENAMEAT2") == nullptr) {
      GTEST_SKIP() << "GEMMTUNE_SHIM_NO_RENAMEAT2 is not set";
    }
    std::filesystem::remove(dir / "probe");
  }
  // Plays another writer at the first lock taken on `path`.
  void interloper(const std::filesystem::path& path, const char* how) {
    ::setenv("GEMMTUNE_SHIM_INTERLOPER_FILE", std::filesystem::absolute(path).c_str(), 1);
    ::setenv("GEMMTUNE_SHIM_INTERLOPER", how, 1);
  }
  void TearDown() override { ::unsetenv("GEMMTUNE_SHIM_INTERLOPER_FILE"); }
  std::size_t files_in_dir() const {
    std::size_t n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      (void)entry;
      ++n;
    }
    return n;
  }

  TempDir dir;
};

TEST_F(NoHardLinks, ANewFileIsWrittenWholeWithNoTemporaryLeft) {
  const auto path = dir / "r.csv";
  EXPECT_TRUE(create_file_atomically(path, "ours\n"));
  EXPECT_EQ(read_text(path), "ours\n");
  EXPECT_EQ(files_in_dir(), 1u);
  EXPECT_FALSE(create_file_atomically(path, "again\n"));
  EXPECT_EQ(read_text(path), "ours\n");
}

// A writer that found the new, empty file and appended its header and line before our lock keeps
// them: ours were written over them at offset 0.
TEST_F(NoHardLinks, AFileAppendedToBeforeTheLockIsLeftToItsWriter) {
  const auto path = dir / "r.csv";
  interloper(path, "append");
  EXPECT_FALSE(create_file_atomically(path, "ours\n"));
  EXPECT_EQ(read_text(path), "interloper\n");
}

// One that replaced it (an append that rewrites an empty file whole) keeps its file: ours went
// into the file it replaced, and were lost with it, while the call said it had created the file.
TEST_F(NoHardLinks, AFileRenamedOverBeforeTheLockIsLeftToItsWriter) {
  const auto path = dir / "r.csv";
  interloper(path, "replace");
  EXPECT_FALSE(create_file_atomically(path, "ours\n"));
  EXPECT_EQ(read_text(path), "interloper\n");
  EXPECT_EQ(files_in_dir(), 1u);
}

// One that removed it (a user's rm, say) leaves the name free: the file is made again, not
// reported as there.
TEST_F(NoHardLinks, AFileRemovedBeforeTheLockIsMadeAgain) {
  const auto path = dir / "r.csv";
  interloper(path, "remove");
  EXPECT_TRUE(create_file_atomically(path, "ours\n"));
  EXPECT_EQ(read_text(path), "ours\n");
}

}  // namespace
}  // namespace gemmtune::testing
