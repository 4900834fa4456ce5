// finishes_within: runs a call that a bug could make loop forever in a child process, so that the
// test fails — the child killed once the limit passes — rather than hangs. The child's exit status
// says how the call ended; what it wrote to files the parent reads afterwards.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <ostream>
#include <thread>

#include "tuner/error.hpp"

namespace gemmtune::testing {

// How the call ended in the child.
enum class Ended { kReturned, kInputError, kOtherException, kTimedOut };

// For gtest's messages: the name, not "4-byte object".
inline void PrintTo(Ended ended, std::ostream* out) {
  constexpr const char* kNames[] = {"returned", "threw InputError", "threw another exception",
                                    "timed out (killed)"};
  *out << kNames[static_cast<int>(ended)];
}

inline Ended finishes_within(std::chrono::seconds limit, const std::function<void()>& call) {
  const pid_t pid = ::fork();
  if (pid < 0) return Ended::kOtherException;
  if (pid == 0) {
    int status = 0;
    try {
      call();
    } catch (const InputError&) {
      status = 1;
    } catch (...) {
      status = 2;
    }
    ::_exit(status);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return Ended::kTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!WIFEXITED(status)) return Ended::kOtherException;
  switch (WEXITSTATUS(status)) {
    case 0:
      return Ended::kReturned;
    case 1:
      return Ended::kInputError;
    default:
      return Ended::kOtherException;
  }
}

}  // namespace gemmtune::testing
