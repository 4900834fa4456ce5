#include "db/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

[[noreturn]] void fail_errno(std::string_view call, const std::filesystem::path& path) {
  GEMMTUNE_THROW("{}({}) failed: {}", call, path.string(), std::strerror(errno));
}

// Owns a file descriptor; closing in the destructor never throws (close errors on the success
// path are checked by close_checked before the destructor runs).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void close_checked(const std::filesystem::path& path) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno("close", path);
  }

 private:
  int fd_;
};

void write_all(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("write", path);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void fsync_directory(const std::filesystem::path& dir) {
  Fd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno("open", dir);
  if (::fsync(fd.get()) != 0) fail_errno("fsync", dir);
}

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  // pid + counter is unique among processes and threads of this host; O_EXCL catches the rest.
  static std::atomic<unsigned> counter{0};
  auto name = path.filename().string();
  name = fmt::format(".{}.tmp.{}.{}", name, ::getpid(), counter++);
  return path.parent_path() / name;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const ChunkWriter&)>& produce) {
  const auto temp = temp_path_for(path);
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail_errno("open", temp);
  try {
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && ::fchmod(fd.get(), old.st_mode & 07777) != 0) {
      fail_errno("fchmod", temp);
    }
    produce([&](std::string_view chunk) { write_all(fd.get(), chunk, temp); });
    if (::fsync(fd.get()) != 0) fail_errno("fsync", temp);
    fd.close_checked(temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) fail_errno("rename", path);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  fsync_directory(path.parent_path());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  write_file_atomically(path, [&](const ChunkWriter& write) { write(content); });
}

bool create_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const auto temp = temp_path_for(path);
  {
    Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.get() < 0) fail_errno("open", temp);
    try {
      write_all(fd.get(), content, temp);
      if (::fsync(fd.get()) != 0) fail_errno("fsync", temp);
      fd.close_checked(temp);
    } catch (...) {
      ::unlink(temp.c_str());
      throw;
    }
  }
  const bool created = ::link(temp.c_str(), path.c_str()) == 0;
  const int link_errno = errno;
  ::unlink(temp.c_str());
  if (!created) {
    if (link_errno == EEXIST) return false;
    errno = link_errno;
    fail_errno("link", path);
  }
  fsync_directory(path.parent_path());
  return true;
}

void append_durably(const std::filesystem::path& path, std::string_view content) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  Fd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail_errno("open", path);
  struct stat before {};
  if (::fstat(fd.get(), &before) != 0) fail_errno("fstat", path);
  try {
    write_all(fd.get(), content, path);
    if (::fsync(fd.get()) != 0) fail_errno("fsync", path);
  } catch (...) {
    // A line cut short (disk full, a size limit) could still parse: a time cut after "0.00" is a
    // 0 ms winner that a resumed run would skip and a merge would prefer. Take the file back to
    // what it held; the exception says what failed.
    if (::ftruncate(fd.get(), before.st_size) == 0) (void)::fsync(fd.get());
    throw;
  }
  fd.close_checked(path);
  if (!existed) fsync_directory(path.parent_path());
}

void check_can_write(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
  std::error_code ec;
  const auto status = std::filesystem::status(dir, ec);
  if (!std::filesystem::exists(status)) {
    throw InputError(fmt::format("{}: cannot be written: the directory {} does not exist",
                                 path.string(), dir.string()));
  }
  if (!std::filesystem::is_directory(status)) {
    throw InputError(
        fmt::format("{}: cannot be written: {} is not a directory", path.string(), dir.string()));
  }
  // Writes go through a temporary file beside the target (write_file_atomically), so the
  // directory itself must take new files.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw InputError(fmt::format("{}: cannot be written: the directory {}: {}", path.string(),
                                 dir.string(), std::strerror(errno)));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a file", path.string()));
  }
}

}  // namespace gemmtune
