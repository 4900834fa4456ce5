// Log messages held back while their thread holds a Context lock (api/deferred_log.hpp).
#include "api/deferred_log.hpp"

#include <utility>
#include <vector>

namespace gemmtune::api {
namespace {

struct Waiting {
  LogEmitter emit;
  std::string message;
};

// Per thread: the locks it holds and what it logged under them. No other thread touches them.
thread_local int locks_held = 0;
thread_local std::vector<Waiting> waiting;

}  // namespace

void log_when_unlocked(const LogEmitter& emit, std::string_view message) {
  if (locks_held > 0) {
    waiting.push_back({emit, std::string(message)});
    return;
  }
  emit(message);
}

namespace detail {

void enter_locked_scope() {
  ++locks_held;
}

void leave_locked_scope() {
  if (--locks_held > 0) return;
  // A sink may call into the Context and log again (it then holds no lock, so that goes out at
  // once), or take a lock and log under it (that waits in `waiting` anew): take the batch first.
  while (!waiting.empty()) {
    std::vector<Waiting> batch = std::exchange(waiting, {});
    for (const Waiting& w : batch) w.emit(w.message);
  }
}

}  // namespace detail
}  // namespace gemmtune::api
