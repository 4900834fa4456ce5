// ContextLog: how the Context and its parts say things. A message goes to Options::log, or to
// stderr where the application gave none; a sink that throws is ignored; a message said while this
// thread holds a ContextLock waits until it lets go of the last (api/deferred_log.hpp). Some
// messages are said once unless the Context is verbose, and verbose is one of the Context's mode
// bits: so the bits are declared here, where the log reads them.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "api/deferred_log.hpp"
#include "gemmtune/options.hpp"
#include "tuner/problem.hpp"

namespace gemmtune {

// Mode bits of Context::Impl::flags, read with one atomic load on the hot path.
namespace context_flags {
inline constexpr unsigned kEnabled = 1, kTuning = 2, kRecord = 4, kVerbose = 8;
}  // namespace context_flags

namespace api {

class ContextLog {
 public:
  // `flags` are the Context's mode bits; they outlive the log.
  ContextLog(LogSink sink, const std::atomic<unsigned>& flags);

  void operator()(std::string_view message) const { log_when_unlocked(emit_, message); }
  bool verbose() const {
    return (flags_.load(std::memory_order_relaxed) & context_flags::kVerbose) != 0;
  }

 private:
  LogEmitter emit_;  // the sink, or stderr; never throws
  const std::atomic<unsigned>& flags_;
};

// How messages name a problem: by the signatures its results or untuned line has.
std::string signature(const Problem& problem);

}  // namespace api
}  // namespace gemmtune
