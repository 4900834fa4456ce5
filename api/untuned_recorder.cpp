#include "api/untuned_recorder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "db/line_end.hpp"
#include "db/untuned_file.hpp"
#include "tuner/error.hpp"

namespace gemmtune::api {

void UntunedRecorder::set_path(std::string path) {
  if (path == path_) return;
  path_ = std::move(path);
  loaded_ = false;
  recorded_.clear();
}

void UntunedRecorder::load_existing() {
  loaded_ = true;
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return;
  Diagnostics diagnostics;  // lines another tool wrote badly are not ours to judge here
  try {
    for (auto& e : read_untuned_file(path_, diagnostics)) recorded_.insert(e.problem);
  } catch (const std::exception&) {
    // Unreadable: recording appends anyway, and a later dedupe (gemmtune tune) removes repeats.
  }
}

bool UntunedRecorder::record(const Problem& problem) {
  if (!loaded_) load_existing();
  if (!recorded_.insert(problem).second) return false;
  std::string line = problem.op_signature() + "," + problem.params_signature() + "\n";
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    recorded_.erase(problem);
    // The file system's refusal (no permission, a missing directory): the user's to fix.
    throw InputError(
        fmt::format("{}: cannot open the untuned file: {}", path_, std::strerror(errno)));
  }
  // A file whose last line has no newline (written by hand, or by a tool cut short) would have
  // this line glued onto it, losing both: start a line first. Under a lock, so that two recorders
  // do not both see the same unfinished last line. Not for long: the application's GEMM is
  // waiting, and without the lock the O_APPEND write is still whole.
  bool locked = false;
  for (int tries = 0; tries < 100; ++tries) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      locked = true;
      break;
    }
    if (errno != EWOULDBLOCK) break;
    ::usleep(10'000);
  }
  if (ends_mid_line(fd)) line.insert(line.begin(), '\n');
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int write_errno = errno;
  if (written != static_cast<ssize_t>(line.size())) {
    // A full disk, say. Not recorded: a later record of it (after set_path) tries again. A part
    // of the line that did get written is cut off where no other recorder can have appended
    // after it (under the lock), so that the file does not keep half a line.
    // By the size after the write, less what it wrote: a writer that takes no lock (PyTorch)
    // may have appended between the size read above and this write.
    struct stat after {};
    if (written > 0 && locked && ::fstat(fd, &after) == 0 && after.st_size >= written) {
      (void)::ftruncate(fd, after.st_size - written);
    }
    ::close(fd);
    recorded_.erase(problem);
    throw InputError(
        fmt::format("{}: cannot append to the untuned file: {}", path_,
                    written < 0 ? std::string(std::strerror(write_errno))
                                : fmt::format("{} of {} bytes written", written, line.size())));
  }
  ::close(fd);
  return true;
}

}  // namespace gemmtune::api
