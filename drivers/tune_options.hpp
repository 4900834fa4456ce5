// TuneOptions: everything `gemmtune tune` (and tuning from code) is told, filled once at start
// from the command line and GEMMTUNE_* environment variables, and printed with every report.
#pragma once

#include <string>
#include <vector>

#include "drivers/backend_factory.hpp"
#include "drivers/multi/shard.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {

// PyTorch's default results file name for device 0 (tunableop_results<ordinal>.csv).
inline constexpr const char* kDefaultResultsFile = "tunableop_results0.csv";

// The most devices one run takes, each a worker process. Far above the GPUs one host holds (8 to
// 16) and the CPU workers that are of use (each wants cores of its own; they only play devices),
// yet low enough that a typo (--workers 100000) is refused instead of spawning that many
// processes, and that the coordinator's two pipes a worker stay well inside the common limit of
// 1024 open files.
inline constexpr int kMaxDevices = 256;
// The highest device ordinal: per-device files are found again by at most four digits in the
// device's place (output_names.hpp), so that a file named by a date or a longer number is never
// taken for a device's.
inline constexpr int kMaxDeviceOrdinal = 9999;

struct TuneOptions {
  std::vector<std::string> inputs;    // untuned files or glob patterns
  std::vector<std::string> problems;  // "OP_SIG,PARAMS_SIG" given inline
  std::string output = kDefaultResultsFile;
  BackendKind backend = BackendKind::Auto;
  int device = 0;
  TunerOptions tuner;
  bool strict = false;   // stop at the first bad input line
  bool verbose = false;  // every candidate's disposition
  // The GPU monitor's sampling interval (drivers/monitor/), ms; 0 = off. CUDA devices only.
  int monitor_interval_ms = 100;

  // Several devices, one worker process each (--gpus, --devices, --workers), at most kMaxDevices;
  // empty: tune in this process on `device`. With the CPU backend the ordinals only name the
  // workers and their files.
  std::vector<int> devices;
  double problem_timeout_s = 0;  // a worker longer on one problem is killed (0 = no limit)
  int max_worker_restarts = 3;   // per device, after a worker died
  Shard shard;                   // this rank's share of the problems (count 1: all of them)
  // The effective layered configuration (TOML; cli/config_options.hpp), recorded with the run.
  std::string config;
  // The gemmtune executable that workers run; empty: this process's own (/proc/self/exe). Set by
  // tests and by programs that embed the drivers.
  std::string worker_executable;
};

// The effective options, one "key=value" per line, for reports and the runs table; then the
// effective configuration, when there is one.
std::string describe(const TuneOptions& options);

// The part of describe() that decides how a problem is tuned (timing, checks, search, seed): what
// every worker of a run must share, and checks that it does.
std::string describe_tuning(const TunerOptions& tuner);

}  // namespace gemmtune
