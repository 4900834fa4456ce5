// UntunedRecorder: appends problems that have no result to an untuned file, once each, in the
// format `gemmtune tune` and PyTorch read (OP_SIG,PARAMS_SIG). Problems already in the file when
// it is first used count as recorded, so reruns of an application add nothing twice. Each line
// is one write(2) with O_APPEND, so several processes appending to one file do not interleave
// within a line. Not thread-safe: the Context calls it under its writer mutex.
#pragma once

#include <string>
#include <unordered_set>

#include "tuner/problem.hpp"

namespace gemmtune::api {

class UntunedRecorder {
 public:
  // Switches to another file (the next record reads it first).
  void set_path(std::string path);
  const std::string& path() const { return path_; }

  // True when the line was appended now; false when already recorded. Throws on I/O failure.
  bool record(const Problem& problem);

 private:
  void load_existing();

  std::string path_;
  bool loaded_ = false;
  std::unordered_set<Problem, ProblemHash> recorded_;
};

}  // namespace gemmtune::api
