// WorkerProcess: one child process, started from an argument vector with posix_spawn — never
// through a shell, so that no path or option is ever re-parsed — with a pipe to its stdin and one
// from its stdout; its stderr is ours.
//
// Contract:
// - Pipes are close-on-exec, so that a worker never holds another worker's pipe open (which
//   would hide that worker's death from us).
// - The child starts with default signal dispositions and an empty signal mask whatever ours are.
// - send_line() returns false when the child has gone (no SIGPIPE; the caller ignores it).
// - read_lines() takes what the pipe holds without blocking and returns the complete lines;
//   eof() is true once the child closed its stdout (it exited or was killed).
// - wait() reaps the child and says how it ended ("exit status 3", "signal 9 (Killed)"); a child
//   still there kExitGrace later is killed, so that one stuck on its way out never blocks the
//   coordinator.
// - RAII: a child still running when the object is destroyed is killed with SIGKILL and reaped.
#pragma once

#include <chrono>

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmtune {

class WorkerProcess {
 public:
  using EnvironmentOverrides = std::vector<std::pair<std::string, std::string>>;

  // Throws Error when the process cannot be started.
  static std::unique_ptr<WorkerProcess> spawn(const std::vector<std::string>& argv,
                                              const EnvironmentOverrides& overrides = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  int output_fd() const { return out_fd_; }

  bool send_line(std::string_view line);
  void close_input();

  std::vector<std::string> read_lines();
  bool eof() const { return eof_; }

  void kill_now();
  static constexpr std::chrono::milliseconds kExitGrace{20000};
  // Reaps the child; one that has not exited `grace` after the call is killed first.
  std::string wait(std::chrono::milliseconds grace = kExitGrace);

 private:
  WorkerProcess(pid_t pid, int in_fd, int out_fd) : pid_(pid), in_fd_(in_fd), out_fd_(out_fd) {}

  pid_t pid_;
  int in_fd_;
  int out_fd_;
  bool eof_ = false;
  bool reaped_ = false;
  std::string buffer_;
};

// This executable's path (/proc/self/exe), for starting workers of the same build.
std::string self_executable();

}  // namespace gemmtune
