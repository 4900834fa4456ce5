// Profiler: runs one Solution for one phase (warmup, screening, measurement) under that phase's
// caps and returns its per-iteration samples and their Statistics.
//
// Each iteration takes the next rotating operand set and has its own IterationTimer begin/end
// pair; a cache flush, when asked for, happens before `begin`, outside the timed region. The caps
// hold whichever comes first — iterations, or milliseconds counted as the sum of the samples (the
// device's time, which is what a fake timer can program) — and at least one iteration runs.
// Iterations are issued in chunks: the first of one iteration, each later one sized from the
// average sample so far to fit the remaining iterations and time; samples are collected after
// each chunk. Under TimingMode::Queued the timer holds the device until a chunk is fully queued,
// so a chunk's iterations run back to back whatever the host's launch time; under Immediate they
// run as issued.
//
// An EarlyStop ends the phase after its first sample where that sample exceeds
// first_sample_above_ms, or after median_samples samples where their median exceeds
// median_above_ms (a chunk ends there, so that no more are queued before it looks): screening's
// cuts (screening_stops), for candidates too slow to be worth the rest of their samples.
//
// run_burst is the other way to time: many iterations between one begin/end pair (the burst check).
//
// A failed RunStatus stops the phase and is returned; exceptions from the solution propagate.
#pragma once

#include <vector>

#include "tuner/backend.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/solution.hpp"
#include "tuner/statistics.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune {

struct Measurement {
  std::vector<double> samples_ms;
  Statistics stats;
  RunStatus status;   // the first failure, if any; samples then hold what ran before it
  int cut_after = 0;  // the samples after which run()'s EarlyStop ended the phase; 0: it did not
};

class Profiler {
 public:
  Profiler(Backend& backend, OperandSets& operands, bool flush_between_iterations, TimingMode mode)
      : backend_(backend), operands_(operands), flush_(flush_between_iterations), mode_(mode) {}

  Measurement run(Solution& solution, const Problem& problem, const PhaseCaps& caps,
                  const EarlyStop& stop = {});
  // One burst: `iterations` runs back to back (each on the next operand set, no cache flush)
  // between one begin/end pair of the timer, queued as the mode says. Its one sample is the
  // burst's time divided by `iterations`: the time an iteration takes when nothing separates it
  // from the one before, as in a program's stream or a CUDA graph.
  Measurement run_burst(Solution& solution, const Problem& problem, int iterations);

 private:
  Backend& backend_;
  OperandSets& operands_;
  bool flush_;
  TimingMode mode_;
};

// The most iterations issued between two collect_ms() calls: what an IterationTimer must be able
// to hold (CUDA: event pairs) before it is collected.
inline constexpr int kMaxChunk = 1024;
// The most iterations queued behind a held stream (TimingMode::Queued): each is two events and a
// launch or a few (a flush, a split-k reduction), and the driver blocks the host once a stream's
// queue is about 1020 commands deep (measured on an H200: bench/results/2026-11-22-h200-queued-
// timing.md), which would hold the stream until its timeout.
inline constexpr int kMaxQueuedChunk = 128;

// The most iterations a phase capped by duration alone runs while its samples add up to no time at
// all (a timer coarser than the work): where the caps cannot end it, this does.
inline constexpr int kMaxUntimedIterations = 100000;

// The size of the next chunk given what has run so far, or 0 when the phase is over. Exposed for
// tests; `caps` with both limits at 0 allows exactly one iteration.
int next_chunk(const PhaseCaps& caps, int iterations_done, double elapsed_ms);

}  // namespace gemmtune
