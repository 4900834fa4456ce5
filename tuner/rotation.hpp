// Rotation: how many copies of the operands (A, B, C and bias) the profiler cycles through so that
// no iteration finds its inputs in the last-level cache, and whether the cache must be flushed
// instead. Pure arithmetic, so that it can be tested without a device.
//
// Target footprint: rotating_buffer_mb when given (0 = rotation off, one copy, no flush), else
// twice the last-level cache. The copies are capped by `memory_budget_bytes`; when the cap keeps
// the footprint below its target, the plan asks for a cache flush between iterations instead.
// With rotation on and `placements` > 1, the copies are spread over that many separate
// allocations, and there are at least that many copies where memory allows (more than the
// footprint needs): see DeviceProperties::operand_placements.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace gemmtune {

struct RotationPlan {
  int copies = 1;                   // operand sets to allocate and cycle through
  int placements = 1;               // separate allocations the copies are spread over (<= copies)
  std::size_t set_bytes = 0;        // bytes of one set (A, B, C, bias, each slice aligned)
  std::size_t target_bytes = 0;     // footprint asked for; 0 when rotation is off
  std::size_t footprint_bytes = 0;  // copies × set_bytes
  bool flush = false;               // flush the cache before every iteration
  bool fits = true;                 // false: not even one set fits the memory budget

  // One line for reports: "4 sets × 80.0 MiB = 320.0 MiB (target 2×LLC = 640.0 MiB), flush".
  std::string describe() const;
};

// Bytes a slice of one operand occupies inside a rotating buffer: its bytes rounded up to
// kSliceAlignment so that every copy starts as aligned as a fresh allocation.
inline constexpr std::size_t kSliceAlignment = 256;
std::size_t slice_bytes(std::size_t bytes);

// `set_bytes` is what one operand set needs (already slice-rounded); `flush_requested` is
// TimingPolicy::flush_cache.
RotationPlan plan_rotation(std::size_t set_bytes, std::size_t last_level_cache_bytes,
                           std::size_t memory_budget_bytes,
                           std::optional<double> rotating_buffer_mb, bool flush_requested,
                           int placements = 1);

}  // namespace gemmtune
