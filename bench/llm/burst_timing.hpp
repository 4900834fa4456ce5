// A solution's per-iteration device time with the host out of the way: a kernel that spins on a
// host-mapped flag holds the stream while `iterations` runs (on the rotating operand sets, as the
// profiler takes them) are queued behind it between one pair of events; releasing the flag lets
// the device run them back to back. The median of `bursts` such bursts, over `iterations`.
//
// A diagnostic for GEMMs of a few microseconds: the profiler brackets each iteration with its
// own events, so where the host needs longer to issue an iteration than the device to run it,
// the device waits between the begin event and the kernel, and that wait is in the sample.
// (CUDA graphs would do the same, but the solutions ask the stream for its device, which a
// capturing stream refuses.)
#pragma once

#include <string>

#include "tuner/operand_sets.hpp"
#include "tuner/problem.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::bench {

struct BurstTime {
  double median_ms = 0;
  std::string error;  // why there is no time (a run failed, the spin timed out)
};

BurstTime burst_time(Solution& solution, const Problem& problem, OperandSets& sets, void* stream,
                     int iterations = 20, int bursts = 7);

}  // namespace gemmtune::bench
