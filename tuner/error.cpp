#include "tuner/error.hpp"

#include <cstdio>

namespace gemmtune {

Error::Error(std::string_view file, int line, std::string_view message)
    : std::runtime_error(fmt::format("{}:{}: {}", file, line, message)),
      file_(file),
      line_(line),
      message_(message) {}

void throw_error(std::string_view file, int line, std::string_view message) {
  throw Error(file, line, message);
}

void report_error_noexcept(std::string_view file, int line, std::string_view message) noexcept {
  // fmt may allocate and throw; a destructor must not, so fall back to the bare message.
  try {
    fmt::print(stderr, "gemmtune: error: {}:{}: {}\n", file, line, message);
  } catch (...) {
    std::fputs("gemmtune: error while reporting an error\n", stderr);
  }
}

}  // namespace gemmtune
