// Error: the one exception type gemmtune throws for broken invariants and failed library calls.
//
// It carries the source location, the call text and the library's own error string, formatted
// with fmt. Expected outcomes (an unsupported problem, a failing candidate, a bad input line) are
// values elsewhere, not Errors. Backend-specific check macros (GEMMTUNE_CUDA_CHECK, ...) are built
// on `throw_error` so that every library reports failures the same way.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace gemmtune {

class Error : public std::runtime_error {
 public:
  Error(std::string_view file, int line, std::string_view message);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  // The message without the "file:line: " prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

// The device can no longer be used (a sticky CUDA error, a lost device): the tuner ends the
// problem in flight with this message and marks its report fatal, instead of blaming a candidate
// and corrupting the rest of the run. Backends and solutions throw it; a plain Error from a
// candidate only fails that candidate.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// Bad input from a user file or the command line: the message already names where and what.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What is said of an exception an application's provider or solution throws that is no
// std::exception (caught with `...`, it has nothing else to say).
inline constexpr std::string_view kNotAStdException = "an exception that is not a std::exception";

[[noreturn]] void throw_error(std::string_view file, int line, std::string_view message);

// Writes the message to stderr instead of throwing; for destructors and other noexcept paths.
void report_error_noexcept(std::string_view file, int line, std::string_view message) noexcept;

}  // namespace gemmtune

#define GEMMTUNE_THROW(...) ::gemmtune::throw_error(__FILE__, __LINE__, ::fmt::format(__VA_ARGS__))

#define GEMMTUNE_EXPECT(condition, ...)                                                   \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      ::gemmtune::throw_error(__FILE__, __LINE__,                                         \
                              ::fmt::format("expected {}: {}", #condition,                \
                                            ::fmt::format(__VA_ARGS__)));                 \
    }                                                                                     \
  } while (false)
