// Exit codes of the gemmtune executable; documented in the README.
#pragma once

#include <stdexcept>

namespace gemmtune::cli {

enum class ExitCode : int {
  Success = 0,
  InternalError = 1,      // a bug or a failed library call: the message says where
  Usage = 2,              // bad command line
  BadInput = 3,           // an input file (or line) could not be used
  ValidatorMismatch = 4,  // a results file was measured elsewhere; nothing was changed
  Partial = 5,            // some problems were not tuned (or some lines were skipped)
};

inline int to_int(ExitCode code) { return static_cast<int>(code); }

// Thrown by a subcommand to end with a given exit code after it has printed its own report.
class ExitWith : public std::runtime_error {
 public:
  explicit ExitWith(ExitCode code, const std::string& message = {})
      : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

}  // namespace gemmtune::cli
