// HeldFile: "is this still the file that was verified?" answered by the open file itself, so that
// a file of another environment that a file system gave the same inode number cannot pass for it
// (a store's test of that needs the number to come back, which only some file systems do).
#include "db/held_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "temp_dir.hpp"

namespace gemmtune {
namespace {

int open_read(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

TEST(HeldFile, KnowsItsFileUnderAnyDescriptorAndNoOther) {
  testing::TempDir dir;
  testing::write_text(dir / "results.csv", "Validator,PT_VERSION,2.11.0\n");
  auto held = HeldFile::open(dir / "results.csv");
  ASSERT_TRUE(held);
  const int same = open_read(dir / "results.csv");
  EXPECT_TRUE(held->is_open_on(same));
  ::close(same);

  // Replaced under its name: the name's file is another one now, whatever its number.
  testing::write_text(dir / "other.csv", "Validator,PT_VERSION,2.10.0\n");
  std::filesystem::rename(dir / "other.csv", dir / "results.csv");
  const int replaced = open_read(dir / "results.csv");
  EXPECT_FALSE(held->is_open_on(replaced));
  ::close(replaced);

  // Moved away, the held file is still the one that was verified.
  const HeldFile moved = std::move(*held);
  EXPECT_EQ(held->fd(), -1);
  EXPECT_FALSE(HeldFile::open(dir / "missing.csv"));
  EXPECT_GE(moved.fd(), 0);
}

}  // namespace
}  // namespace gemmtune
