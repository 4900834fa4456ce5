#include "tuner/rotation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gemmtune {
namespace {

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

}  // namespace

std::size_t slice_bytes(std::size_t bytes) {
  return (bytes + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
}

RotationPlan plan_rotation(std::size_t set_bytes, std::size_t last_level_cache_bytes,
                           std::size_t memory_budget_bytes,
                           std::optional<double> rotating_buffer_mb, bool flush_requested,
                           int placements) {
  RotationPlan plan;
  plan.set_bytes = set_bytes;
  plan.flush = flush_requested;
  if (set_bytes == 0 || set_bytes > memory_budget_bytes) {
    plan.fits = set_bytes <= memory_budget_bytes;
    plan.footprint_bytes = set_bytes;
    return plan;
  }
  if (rotating_buffer_mb) {
    const double bytes = std::max(0.0, *rotating_buffer_mb) * 1024.0 * 1024.0;
    plan.target_bytes = bytes >= static_cast<double>(std::numeric_limits<std::size_t>::max())
                            ? std::numeric_limits<std::size_t>::max()
                            : static_cast<std::size_t>(bytes);
  } else {
    plan.target_bytes = 2 * last_level_cache_bytes;
  }
  // Enough copies to cover the target; the problem itself may already be larger than it.
  // (Rounded up without adding first: a target of "everything" is SIZE_MAX, which would wrap.)
  std::size_t wanted = plan.target_bytes == 0 ? 1
                                              : plan.target_bytes / set_bytes +
                                                    (plan.target_bytes % set_bytes != 0 ? 1 : 0);
  const std::size_t affordable = memory_budget_bytes / set_bytes;  // >= 1 here
  if (plan.target_bytes > 0 && placements > 1) {
    // A copy in each placement, as far as memory goes (no flush for these: the target is met).
    wanted = std::max(wanted, std::min(static_cast<std::size_t>(placements), affordable));
  }
  if (wanted > affordable) {
    // Rotation cannot cover the target within memory: take what fits and flush instead, so that
    // the cache is still cold at the start of every iteration.
    wanted = affordable;
    plan.flush = true;
  }
  constexpr std::size_t kMaxCopies = static_cast<std::size_t>(std::numeric_limits<int>::max());
  if (wanted > kMaxCopies) {
    wanted = kMaxCopies;
    plan.flush = true;
  }
  plan.copies = static_cast<int>(std::max<std::size_t>(wanted, 1));
  plan.footprint_bytes = static_cast<std::size_t>(plan.copies) * set_bytes;
  if (plan.target_bytes > 0) plan.placements = std::clamp(placements, 1, plan.copies);
  return plan;
}

std::string RotationPlan::describe() const {
  if (!fits) return fmt::format("one operand set of {:.1f} MiB does not fit", mib(set_bytes));
  std::string out = fmt::format("{} set{} x {:.2f} MiB = {:.1f} MiB", copies,
                                copies == 1 ? "" : "s", mib(set_bytes), mib(footprint_bytes));
  out += target_bytes == 0 ? " (rotation off)"
         : placements > 1
             ? fmt::format(" (target {:.1f} MiB, in {} placements)", mib(target_bytes), placements)
             : fmt::format(" (target {:.1f} MiB)", mib(target_bytes));
  if (flush) out += ", cache flushed between iterations";
  return out;
}

}  // namespace gemmtune
