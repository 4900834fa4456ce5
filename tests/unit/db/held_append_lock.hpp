// HeldAppendLock: the test plays another appender that holds a file's append lock (the flock
// append_durably takes), so that a test can make an append wait and change the file meanwhile.
//
// Whether the code under test waits cannot be observed without a clock: wait_briefly gives an
// append that does not wait for the lock time to finish first, which the test then catches by
// its result. An append that waits is unaffected by how long the test waits.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string_view>

namespace gemmtune::testing {

class HeldAppendLock {
 public:
  explicit HeldAppendLock(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC)) {
    EXPECT_GE(fd_, 0) << path;
    EXPECT_EQ(::flock(fd_, LOCK_EX), 0) << path;
  }
  HeldAppendLock(const HeldAppendLock&) = delete;
  HeldAppendLock& operator=(const HeldAppendLock&) = delete;
  ~HeldAppendLock() { release(); }

  // Appends to the locked file in place, as another appender holding the lock does; false when
  // not every byte was written.
  bool append(std::string_view bytes) {
    return ::write(fd_, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  }

  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

template <typename T>
void wait_briefly(const std::future<T>& running) {
  running.wait_for(std::chrono::milliseconds(300));
}

}  // namespace gemmtune::testing
