#include "bench/llm/sustained_turns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "tuner/error.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/profiler.hpp"
#include "tuner/round_order.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune::bench {

std::vector<Timed> sustained_times(Backend& backend, const Registry& registry,
                                   const Problem& problem, const std::vector<std::string>& names,
                                   const SustainedOptions& options) {
  const std::string backend_name = backend.properties().backend;
  std::vector<Timed> out(names.size());
  std::vector<std::unique_ptr<Solution>> solutions;
  std::size_t workspace = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out[i].name = names[i];
    auto s = registry.from_name(backend_name, problem, names[i]);  // "Default": cuBLAS's
    if (!s) {
      out[i].error = "no provider rebuilds this name";
    } else if (const Support support = s->supports(problem); !support) {
      out[i].error = support.reason;
    } else {
      workspace = std::max(workspace, s->workspace_bytes(problem));
    }
    solutions.push_back(out[i].error.empty() ? std::move(s) : nullptr);
  }
  const RotationPlan rotation =
      plan_operand_memory(backend, problem, workspace, options.memory_fraction, std::nullopt, false)
          .rotation;
  if (!rotation.fits) {
    for (Timed& t : out) {
      if (t.error.empty()) t.error = fmt::format("operands do not fit: {}", rotation.describe());
    }
    return out;
  }
  OperandSets sets(backend, problem, rotation, workspace, options.seed, 1.0, 0.0);
  Profiler profiler(backend, sets, rotation.flush, TimingPolicy{}.mode);
  // A failure ends that solution's measurement, never the others'; a sticky device error ends all.
  const auto run = [&](std::size_t i, const PhaseCaps& caps) -> std::optional<Measurement> {
    if (!out[i].error.empty()) return std::nullopt;
    try {
      Measurement m = profiler.run(*solutions[i], problem, caps);
      if (m.status) return m;
      out[i].error = m.status.error;
    } catch (const DeviceError&) {
      throw;
    } catch (const std::exception& x) {
      out[i].error = x.what();
    }
    return std::nullopt;
  };
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t j = 0; j < names.size(); ++j) {
      const std::size_t i = round_position(round, j, names.size());
      if (!run(i, {0, options.lead_in_ms})) continue;
      if (auto m = run(i, options.caps)) {
        out[i].round_medians.push_back(m->stats.median_ms);
        out[i].samples_ms.insert(out[i].samples_ms.end(), m->samples_ms.begin(),
                                 m->samples_ms.end());
      }
    }
  }
  for (Timed& t : out) {
    t.median_ms = t.error.empty() && !t.samples_ms.empty() ? median(t.samples_ms) : 0;
  }
  return out;
}

}  // namespace gemmtune::bench
