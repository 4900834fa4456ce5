// The worker side of a multi-device run: `gemmtune tune --worker` tunes the problems it reads
// from stdin on one device, appends each winner durably to its output, and answers each on stdout
// (worker_protocol.hpp). A person can run it by hand too.
//
// Contract:
// - The protocol owns stdout: anything else this process would print there goes to stderr.
// - Each winner is on disk (ResultsStore::append) before its `ok` line is written, so that a
//   worker killed at any moment loses only the problem in flight.
// - SIGINT is ignored: on Ctrl-C the coordinator decides (it stops handing out work and lets the
//   problems in flight finish); end of input ends the worker.
// - Fault injection, for tests only: GEMMTUNE_TEST_CRASH_ON=<params_sig> makes the worker abort
//   when it is given that problem, GEMMTUNE_TEST_HANG_ON=<params_sig> makes it hang there, and
//   GEMMTUNE_TEST_DEVICE_LOST_ON=<params_sig> makes it report its device lost (`fatal`) there, as
//   a GPU worker does after a sticky CUDA error; GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE=<ordinal>
//   makes that device's worker hang before it reports ready, as a stuck GPU context would. They
//   are read once at worker start (FaultInjection::from_environment) and do nothing when unset.
// - On a CUDA device the worker runs the GPU monitor (drivers/monitor/) around its tunings and
//   prints its summary, prefixed with the device, on stderr when it ends.
#pragma once

#include <string>

#include "drivers/tune_options.hpp"

namespace gemmtune {

struct FaultInjection {
  std::string crash_on;  // params signature
  std::string hang_on;
  std::string device_lost_on;
  std::string crash_after_save_on;   // dies between saving the winner and saying so
  int save_fails_on_device = -1;     // every save of this device's worker fails
  int hang_at_start_on_device = -1;  // this device's worker never reports ready

  static FaultInjection from_environment();
};

// Returns the process exit status: 0 at end of input, 1 after a lost device, 3 when the worker
// could not start (its reason is sent as an `error` message).
int run_worker(const TuneOptions& options, const FaultInjection& faults);

}  // namespace gemmtune
