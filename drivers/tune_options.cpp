#include "drivers/tune_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gemmtune {

std::string describe_tuning(const TunerOptions& tuner) {
  const auto& t = tuner.timing;
  std::string rotating = t.rotating_buffer_mb ? fmt::format("{}", *t.rotating_buffer_mb)
                                              : std::string("default (2x last-level cache)");
  return fmt::format(
      "max_tuning_duration_ms={}\nmax_tuning_iterations={}\nmax_warmup_duration_ms={}\n"
      "max_warmup_iterations={}\nmax_finalists={}\nsettle_ms={}\nconfirmation_contenders={}\n"
      "rotating_buffer_mb={}\nflush_cache={}\ntiming_mode={}\nmin_gain_percent={}\n"
      "trial_min_gain_percent={}\ntrial_turn_ms={}\nidle_between_turns_ms={}\n"
      "burst_check_below_ms={}\nnumerical_check={}"
      "\nsearch={}\nproviders={}"
      "\nworkspace_mb={}\nseed={}\n",
      t.max_tuning_duration_ms, t.max_tuning_iterations, t.max_warmup_duration_ms,
      t.max_warmup_iterations, t.max_finalists, t.settle_duration_ms, t.confirmation_contenders,
      rotating, t.flush_cache, to_string(t.mode), 100 * tuner.min_gain, 100 * tuner.trial_min_gain,
      t.trial_turn_ms, t.idle_between_turns_ms, t.burst_check_below_ms, to_string(tuner.check),
      tuner.search.space == SearchSpace::Exhaustive ? "exhaustive" : "heuristic",
      tuner.search.providers.empty() ? std::string("all")
                                     : fmt::format("{}", fmt::join(tuner.search.providers, ",")),
      static_cast<double>(tuner.search.max_workspace_bytes) / (1024.0 * 1024.0), tuner.seed);
}

std::string describe(const TuneOptions& o) {
  return fmt::format(
      "inputs={}\nproblems={}\noutput={}\nbackend={}\ndevice={}\n{}strict={}\n"
      "monitor_interval_ms={}\ndevices={}\n"
      "problem_timeout_s={}\nmax_worker_restarts={}\nshard={}/{} ({})\n{}",
      fmt::join(o.inputs, " "), fmt::join(o.problems, " "), o.output, to_string(o.backend),
      o.device, describe_tuning(o.tuner), o.strict, o.monitor_interval_ms,
      fmt::join(o.devices, ","), o.problem_timeout_s, o.max_worker_restarts, o.shard.index,
      o.shard.count, o.shard.source,
      o.config.empty() ? std::string() : "# effective configuration\n" + o.config);
}

}  // namespace gemmtune
