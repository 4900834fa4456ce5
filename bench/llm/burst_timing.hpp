// A solution's time per iteration when the device runs iterations back to back, with no event
// between them: what a program that issues GEMMs one after another (or replays them from a CUDA
// graph) sees, and what NVBench calls its batch time.
//
// One burst: the stream is held (cuda::StreamHold) while `iterations` runs on the rotating operand
// sets are queued between one pair of events, then released. Per-iteration events, the tuner's
// protocol, cost each sample 1.2-1.8 µs of device time on an H200 (the event, and the launch
// latency it keeps from overlapping the previous GEMM:
// bench/results/2026-11-22-h200-queued-timing.md), the same for every solution; for a 7 µs GEMM
// that is a quarter of its time, and it narrows every ratio between two solutions.
#pragma once

#include <string>

#include "solutions/cuda/stream_hold.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/problem.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::bench {

// Releases a held stream however the queueing behind it ends (a failed run, an exception).
struct ReleaseOnExit {
  cuda::StreamHold& hold;
  ~ReleaseOnExit() { hold.release(); }
};

struct BurstSample {
  double ms_per_iteration = 0;
  std::string error;  // why there is no sample (a run failed, the hold timed out)
};

BurstSample burst_sample(Solution& solution, const Problem& problem, OperandSets& sets,
                         cuda::StreamHold& hold, void* stream, int iterations = 20);

}  // namespace gemmtune::bench
