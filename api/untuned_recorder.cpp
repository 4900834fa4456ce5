#include "api/untuned_recorder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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
  const std::string line = problem.op_signature() + "," + problem.params_signature() + "\n";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    recorded_.erase(problem);
    GEMMTUNE_THROW("cannot open untuned file {}: {}", path_, std::strerror(errno));
  }
  const ssize_t written = ::write(fd, line.data(), line.size());
  const int write_errno = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    GEMMTUNE_THROW("cannot append to untuned file {}: {}", path_, std::strerror(write_errno));
  }
  return true;
}

}  // namespace gemmtune::api
