// measure_pair: how `gemmtune bench` times one case — Default and the tuned solution on the same
// operands, under the same conditions, so that their difference is the solutions' alone.
//
// Contract: operands are allocated and filled with random values before any timing, in rotating
// copies covering at least twice the last-level cache (TimingPolicy::rotating_buffer_mb
// overrides the target; a cache flush before every iteration where the copies cannot cover it,
// or when flush_cache asks). Each solution is warmed up, untimed — one call as issued (a first
// launch may load its kernel), then for `warmup_ms` of device time (so that a GPU's clocks, idle
// while the host checked a tuning's results, come back up), then for `warmup_iterations` more —
// then the timed iterations run through the profiler — one timer pair per iteration, in
// TimingPolicy::mode — in interleaved rounds (up to 4), each solution taking its share of
// `iterations` per round, the order reversed every other round, so that clock drift during the
// measurement falls on both alike; the samples of all rounds are pooled. Exactly `iterations`
// samples result unless a solution fails, which ends that solution's measurement with its status.
// Exceptions from a solution propagate.
#pragma once

#include <cstdint>
#include <optional>

#include "tuner/backend.hpp"
#include "tuner/problem.hpp"
#include "tuner/profiler.hpp"
#include "tuner/rotation.hpp"
#include "tuner/solution.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune::bench {

struct MeasureOptions {
  double warmup_ms = 25;
  int warmup_iterations = 10;
  int iterations = 100;
  TimingPolicy timing;  // only rotating_buffer_mb, flush_cache and mode are used
  std::uint64_t seed = 42;
  double memory_fraction = 0.5;  // of Backend::available_memory_bytes() for the operands
};

struct PairMeasurement {
  Measurement baseline;              // Default
  std::optional<Measurement> other;  // the second solution, when one was given
  RotationPlan rotation;             // the conditions
};

// Measures `baseline` and, when given, `other`; throws InputError when not even one operand set
// fits in the allowed memory.
PairMeasurement measure_pair(Backend& backend, const Problem& problem, Solution& baseline,
                             Solution* other, const MeasureOptions& options);

}  // namespace gemmtune::bench
