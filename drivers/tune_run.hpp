// Offline tuning of untuned problems: read them (files, patterns, inline), keep this rank's share
// (shards), skip the ones the outputs already hold for this environment (so a rerun resumes), and
// tune the rest — one by one in this process on one device, or across several devices with one
// worker process each (drivers/multi/coordinator.hpp) — appending each winner durably the moment
// it is found, so that an interrupted run (kill -9 included) loses at most the problems in flight.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/diagnostics.hpp"
#include "drivers/monitor/monitor_summary.hpp"
#include "drivers/tune_options.hpp"
#include "drivers/tune_problems.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {

struct UntunedEntry;

struct TuneFailure {
  std::string op_signature;
  std::string params_signature;
  std::string reason;
};

// What one device did in a multi-device run.
struct DeviceLoad {
  int ordinal = 0;
  std::string description;  // "cpu device 0: AMD EPYC" once its worker started
  std::size_t tuned = 0;
  std::size_t failed = 0;  // by the tuner on this device
  double busy_s = 0;       // sum of its problems' tuning times
  double flops = 0;        // sum of its tuned problems' FLOPs (one GEMM each)
  int worker_deaths = 0;   // crashed, killed or timed out
  // Why it stopped taking problems early (its worker could not start, died too often, lost the
  // device, reported other validators): the device was lost to the run. Empty if it did not, or
  // if a stop request ended it.
  std::string retired;
};

struct TuneSummary {
  std::size_t requested = 0;     // distinct problems after dedupe (this rank's share)
  std::size_t all_problems = 0;  // distinct problems before sharding
  Shard shard;
  std::size_t already_tuned = 0;    // skipped: in the outputs for this environment
  std::vector<TuningReport> tuned;  // in the order results came
  std::vector<TuneFailure> failed;
  std::size_t bad_lines = 0;  // input lines that could not be read
  std::string device;         // "cpu device 0: AMD EPYC" for the report
  bool interrupted = false;
  std::vector<DeviceLoad> devices;  // multi-device runs only
  std::vector<std::string>
      outputs;  // files written (multi-device runs: per device, gathered, copies)
  std::vector<std::string> notes;  // what the run wants said (gather conflicts, refusals)
  // Gathered files or copies left as they were (lines they hold that could not be read, another
  // environment): they lack this run's winners, so the run is not complete (notes say why).
  std::vector<std::string> stale_outputs;
  // What the GPU monitor saw while this process tuned (one device, in this process, with the
  // monitor on); measurement windows are the problems' tunings. Multi-device workers print
  // theirs on stderr.
  std::optional<monitor::MonitorSummary> monitor;
  double wall_s = 0;

  // The devices of a multi-device run that were lost (retired), in the order of `devices`.
  std::vector<const DeviceLoad*> lost_devices() const {
    std::vector<const DeviceLoad*> lost;
    for (const auto& d : devices) {
      if (!d.retired.empty()) lost.push_back(&d);
    }
    return lost;
  }

  // Whether the run did all that was asked. A lost device makes it incomplete even where the
  // others tuned every problem: a device asked for did not take its part (broken, another
  // model), which a plain success would hide.
  bool complete() const {
    return failed.empty() && bad_lines == 0 && !interrupted && stale_outputs.empty() &&
           lost_devices().empty();
  }
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
  // Something worth saying as it happens: a worker died and was restarted, a device retired.
  virtual void on_note(const std::string& note) { (void)note; }
};

// Runs the whole tuning; throws InputError for unusable input (no problems at all, more than
// kMaxDevices devices, an output measured elsewhere) and ValidatorMismatchError when the output's
// validators differ.
TuneSummary run_tune(const TuneOptions& options, Diagnostics& diagnostics, TuneObserver& observer,
                     const std::string& command_line);

// Called from a signal handler: the run stops after the problems in flight. A multi-device run
// asked a second time stops those too (their workers are killed; the problems are interrupted).
void request_tune_stop() noexcept;
bool tune_stop_requested() noexcept;
int tune_stop_requests() noexcept;  // how many times it was asked

}  // namespace gemmtune
