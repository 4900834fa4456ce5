#include "drivers/bench/pair_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "tuner/error.hpp"
#include "tuner/operand_sets.hpp"

namespace gemmtune::bench {
namespace {

constexpr int kRounds = 4;

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

}  // namespace

PairMeasurement measure_pair(Backend& backend, const Problem& problem, Solution& baseline,
                             Solution* other, const MeasureOptions& options) {
  PairMeasurement result;
  std::size_t workspace = baseline.workspace_bytes(problem);
  if (other) workspace = std::max(workspace, other->workspace_bytes(problem));

  const OperandMemory memory =
      plan_operand_memory(backend, problem, workspace, options.memory_fraction,
                          options.timing.rotating_buffer_mb, options.timing.flush_cache);
  result.rotation = memory.rotation;
  if (!result.rotation.fits) {
    throw InputError(fmt::format(
        "{}: operands need {:.1f} MiB (+{:.1f} MiB workspace), more than the {:.1f} MiB allowed",
        problem.params_signature(), mib(memory.set_bytes), mib(memory.fixed_bytes),
        mib(memory.allowed_bytes)));
  }
  OperandSets sets(backend, problem, result.rotation, workspace, options.seed, 1.0, 0.0);
  Profiler profiler(backend, sets, result.rotation.flush, options.timing.mode);

  struct Entry {
    Solution* solution;
    Measurement* out;
  };
  std::vector<Entry> entries{{&baseline, &result.baseline}};
  if (other) {
    result.other.emplace();
    entries.push_back({other, &*result.other});
  }
  // Each solution's first call runs as issued: a kernel's first launch may wait for an idle
  // device (CUDA's lazy loading), which behind a held stream (queued timing) lasts until the
  // hold's timeout.
  Profiler first_call(backend, sets, result.rotation.flush, TimingMode::Immediate);
  for (auto& e : entries) {
    const Measurement first = first_call.run(*e.solution, problem, {1, 0});
    if (!first.status) e.out->status = first.status;
    if (options.warmup_ms > 0 && e.out->status) {
      const Measurement warm = profiler.run(*e.solution, problem, {0, options.warmup_ms});
      if (!warm.status) e.out->status = warm.status;
    }
    if (options.warmup_iterations > 0 && e.out->status) {
      const Measurement warm = profiler.run(*e.solution, problem, {options.warmup_iterations, 0});
      if (!warm.status) e.out->status = warm.status;
    }
  }
  const int iterations = std::max(options.iterations, 1);
  const int rounds = std::min(kRounds, iterations);
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry& e = entries[round % 2 == 0 ? i : entries.size() - 1 - i];
      if (!e.out->status) continue;
      const int left = iterations - static_cast<int>(e.out->samples_ms.size());
      const int rounds_left = rounds - round;
      const int share = (left + rounds_left - 1) / rounds_left;
      if (share <= 0) continue;
      const Measurement m = profiler.run(*e.solution, problem, {share, 0});
      e.out->samples_ms.insert(e.out->samples_ms.end(), m.samples_ms.begin(), m.samples_ms.end());
      if (!m.status) e.out->status = m.status;
    }
  }
  for (auto& e : entries) e.out->stats = summarize(e.out->samples_ms);
  return result;
}

}  // namespace gemmtune::bench
