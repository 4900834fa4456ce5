// Options::log is the application's code, and a Context's contract lets any thread call any of
// its members. A sink called while its own thread holds one of the Context's mutexes and calling
// back into the Context (results(), write_file(), gemm() of a new problem, from a sink that reacts
// to "tuned ...") would wait forever on that mutex. So the Context takes its mutexes through
// ContextLock, and a message logged under one waits on its thread until the thread lets go of the
// last: the sink always runs with no Context lock held by its caller.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace gemmtune::api {

using LogEmitter = std::function<void(std::string_view)>;

// Runs `emit(message)` now, or, while this thread holds a ContextLock, when it lets go of its
// last one (in the order logged). `emit` is copied: the message outlives no object of the caller.
void log_when_unlocked(const LogEmitter& emit, std::string_view message);

namespace detail {
void enter_locked_scope();
void leave_locked_scope();  // sends what waited once this thread holds no ContextLock
}  // namespace detail

// A std::lock_guard that holds the Context's log messages back while it is held.
template <class Mutex>
class [[nodiscard]] ContextLock {
 public:
  explicit ContextLock(Mutex& mutex) : lock_(mutex) { detail::enter_locked_scope(); }
  ~ContextLock() {
    lock_.unlock();
    detail::leave_locked_scope();
  }
  ContextLock(const ContextLock&) = delete;
  ContextLock& operator=(const ContextLock&) = delete;

 private:
  std::unique_lock<Mutex> lock_;
};

}  // namespace gemmtune::api
