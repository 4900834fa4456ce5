// Atomic writes: a failure mid-write leaves the old file intact and no temp file behind; durable
// appends add to the end.
#include "db/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>

#include <stdexcept>

#include "temp_dir.hpp"

namespace gemmtune {
namespace {

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
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // a failed write, not a killed process
  rlimit small = old_limit;
  small.rlim_cur = before.size() + 10;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  EXPECT_THROW(append_durably(file, "GemmTunableOp_float_NN,nn_16_64_64_ld_16_64_16,X,0.0031\n"),
               std::exception);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(testing::read_text(file), before);
}

}  // namespace
}  // namespace gemmtune
