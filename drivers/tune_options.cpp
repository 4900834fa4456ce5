#include "drivers/tune_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gemmtune {

std::string describe(const TuneOptions& o) {
  const auto& t = o.tuner.timing;
  std::string rotating = t.rotating_buffer_mb ? fmt::format("{}", *t.rotating_buffer_mb)
                                              : std::string("default (2x last-level cache)");
  return fmt::format(
      "inputs={}\nproblems={}\noutput={}\nbackend={}\ndevice={}\n"
      "max_tuning_duration_ms={}\nmax_tuning_iterations={}\nmax_warmup_duration_ms={}\n"
      "max_warmup_iterations={}\nmax_finalists={}\nrotating_buffer_mb={}\nflush_cache={}\nnumerical_check={}\n"
      "search={}\nworkspace_mb={}\nseed={}\nstrict={}\n",
      fmt::join(o.inputs, " "), fmt::join(o.problems, " "), o.output, to_string(o.backend),
      o.device, t.max_tuning_duration_ms, t.max_tuning_iterations, t.max_warmup_duration_ms,
      t.max_warmup_iterations, t.max_finalists, rotating, t.flush_cache, to_string(o.tuner.check),
      o.tuner.search.space == SearchSpace::Exhaustive ? "exhaustive" : "heuristic",
      o.tuner.search.max_workspace_bytes >> 20, o.tuner.seed, o.strict);
}

}  // namespace gemmtune
