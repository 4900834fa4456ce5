#include "drivers/multi/worker_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tuner/numerical_check.hpp"

namespace gemmtune {

std::vector<std::string> worker_arguments(const std::string& executable, const TuneOptions& options,
                                          int ordinal, const std::filesystem::path& output) {
  const TunerOptions& tuner = options.tuner;
  const TimingPolicy& t = tuner.timing;
  std::vector<std::string> args{
      executable,
      "tune",
      "--worker",
      "--output",
      output.string(),
      "--backend",
      std::string(to_string(options.backend)),
      "--device",
      std::to_string(ordinal),
      "--max-tuning-duration-ms",
      fmt::format("{}", t.max_tuning_duration_ms),
      "--max-tuning-iterations",
      std::to_string(t.max_tuning_iterations),
      "--max-warmup-duration-ms",
      fmt::format("{}", t.max_warmup_duration_ms),
      "--max-warmup-iterations",
      std::to_string(t.max_warmup_iterations),
      "--max-finalists",
      std::to_string(t.max_finalists),
      "--settle-ms",
      fmt::format("{}", t.settle_duration_ms),
      "--confirmation-contenders",
      std::to_string(t.confirmation_contenders),
      "--numerical-check",
      to_string(tuner.check),
      "--search",
      tuner.search.space == SearchSpace::Exhaustive ? "exhaustive" : "heuristic",
      "--workspace-mb",
      fmt::format("{}", static_cast<double>(tuner.search.max_workspace_bytes) / (1024.0 * 1024.0)),
      "--seed",
      std::to_string(tuner.seed),
      "--monitor-interval-ms",
      std::to_string(options.monitor_interval_ms),
  };
  if (t.rotating_buffer_mb) {
    args.insert(args.end(), {"--rotating-buffer-mb", fmt::format("{}", *t.rotating_buffer_mb)});
  }
  // Both ways: a worker inherits GEMMTUNE_FLUSH_CACHE, which the coordinator's own command line
  // may have overridden.
  args.emplace_back(t.flush_cache ? "--flush-cache=true" : "--flush-cache=false");
  args.insert(args.end(), {"--timing-mode", std::string(to_string(t.mode))});
  args.insert(args.end(), {"--min-gain-percent", fmt::format("{}", 100 * tuner.min_gain)});
  args.insert(args.end(),
              {"--trial-min-gain-percent", fmt::format("{}", 100 * tuner.trial_min_gain)});
  args.insert(args.end(), {"--trial-turn-ms", fmt::format("{}", t.trial_turn_ms)});
  args.insert(args.end(), {"--idle-between-turns-ms", fmt::format("{}", t.idle_between_turns_ms)});
  args.insert(args.end(), {"--burst-check-below-ms", fmt::format("{}", t.burst_check_below_ms)});
  if (options.verbose) args.emplace_back("--verbose");  // its candidates, on stderr
  if (!tuner.search.providers.empty()) {
    args.insert(args.end(),
                {"--providers", fmt::format("{}", fmt::join(tuner.search.providers, ","))});
  }
  return args;
}

WorkerProcess::EnvironmentOverrides worker_environment(const TuneOptions& options, int cores,
                                                       const EnvironmentLookup& getenv) {
  WorkerProcess::EnvironmentOverrides overrides;
  if (options.backend != BackendKind::Cpu || options.devices.empty()) return overrides;
  const int per_worker = std::max(1, cores / static_cast<int>(options.devices.size()));
  for (const char* name : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (getenv(name) == nullptr) overrides.emplace_back(name, std::to_string(per_worker));
  }
  return overrides;
}

}  // namespace gemmtune
