#include "api/context_log.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace gemmtune::api {
namespace {

LogEmitter make_log_emitter(LogSink sink) {
  return [sink = std::move(sink)](std::string_view message) {
    try {
      if (sink) {
        sink(message);
      } else {
        std::fprintf(stderr, "gemmtune: %.*s\n", static_cast<int>(message.size()), message.data());
      }
    } catch (...) {
      // A throwing sink must not take a GEMM down with it (nor a ContextLock's destructor, which
      // sends what waited).
    }
  };
}

}  // namespace

ContextLog::ContextLog(LogSink sink, const std::atomic<unsigned>& flags)
    : emit_(make_log_emitter(std::move(sink))), flags_(flags) {}

std::string signature(const Problem& p) {
  return fmt::format("{},{}", p.op_signature(), p.params_signature());
}

}  // namespace gemmtune::api
