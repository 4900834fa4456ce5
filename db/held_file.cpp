#include "db/held_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace gemmtune {

std::optional<HeldFile> HeldFile::open(const std::filesystem::path& path) {
  // O_NONBLOCK: no effect on a regular file, and a FIFO in its place does not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  return HeldFile(fd);
}

HeldFile::HeldFile(HeldFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

HeldFile& HeldFile::operator=(HeldFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

HeldFile::~HeldFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool HeldFile::is_open_on(int other_fd) const {
  struct stat held {};
  struct stat other {};
  // A descriptor fstat cannot answer for is no proof of sameness: the caller verifies again.
  if (::fstat(fd_, &held) != 0 || ::fstat(other_fd, &other) != 0) return false;
  return held.st_dev == other.st_dev && held.st_ino == other.st_ino;
}

}  // namespace gemmtune
