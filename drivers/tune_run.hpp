// Offline tuning of untuned problems: read them (files, patterns, inline), skip the ones the
// output already holds for this environment (so a rerun resumes), tune the rest one by one on
// one device, and append each winner durably the moment it is found, so that an interrupted run
// (kill -9 included) loses at most the problem in flight.
#pragma once

#include <string>
#include <vector>

#include "db/diagnostics.hpp"
#include "drivers/tune_options.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {

struct UntunedEntry;

struct TuneFailure {
  std::string op_signature;
  std::string params_signature;
  std::string reason;
};

struct TuneSummary {
  std::size_t requested = 0;       // distinct problems after dedupe
  std::size_t already_tuned = 0;   // skipped: in the output for this environment
  std::vector<TuningReport> tuned;  // in tuning order
  std::vector<TuneFailure> failed;
  std::size_t bad_lines = 0;        // input lines that could not be read
  std::string device;               // "cpu device 0: AMD EPYC" for the report
  bool interrupted = false;

  bool complete() const { return failed.empty() && bad_lines == 0 && !interrupted; }
};

// What the run tells whoever watches it (the CLI's progress bar and table).
class TuneObserver {
 public:
  virtual ~TuneObserver() = default;
  virtual void on_start(const std::string& device, std::size_t to_tune, std::size_t skipped) {
    (void)device, (void)to_tune, (void)skipped;
  }
  virtual void on_problem(const UntunedEntry& entry, std::size_t index, std::size_t total) {
    (void)entry, (void)index, (void)total;
  }
  virtual void on_candidate(const CandidateReport& candidate, int done, int total) {
    (void)candidate, (void)done, (void)total;
  }
  virtual void on_result(const TuningReport& report) { (void)report; }
};

// Runs the whole tuning; throws InputError for unusable input (no problems at all, an output
// measured elsewhere) and ValidatorMismatchError when the output's validators differ.
TuneSummary run_tune(const TuneOptions& options, Diagnostics& diagnostics, TuneObserver& observer,
                     const std::string& command_line);

// Set from a signal handler: the run stops after the problem in flight.
void request_tune_stop() noexcept;

class ValidatorMismatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gemmtune
