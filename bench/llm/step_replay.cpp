#include "bench/llm/step_replay.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_event.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/round_order.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune::bench {
namespace {

double elapsed_ms(const cuda::Event& from, const cuda::Event& to) {
  float ms = 0.0f;
  GEMMTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms;
}

void finish(Timed& t, std::vector<double>& turn) {
  if (turn.empty()) return;
  t.round_medians.push_back(median(turn));
  t.samples_ms.insert(t.samples_ms.end(), turn.begin(), turn.end());
  turn.clear();
}

}  // namespace

std::vector<PolicyTimes> replay_steps(Backend& backend, const Registry& registry,
                                      const TrainingStep& step,
                                      const std::vector<StepPolicy>& policies,
                                      const StepReplayOptions& options) {
  const std::string backend_name = backend.properties().backend;
  const std::size_t distinct = step.distinct.size();
  // solutions[p][d]: policy p's solution of distinct GEMM d.
  std::vector<std::vector<std::unique_ptr<Solution>>> solutions(policies.size());
  std::vector<std::size_t> workspace(distinct, 0);
  for (std::size_t p = 0; p < policies.size(); ++p) {
    if (policies[p].names.size() != distinct) {
      throw std::invalid_argument(fmt::format("policy {}: {} names for {} GEMMs", policies[p].label,
                                              policies[p].names.size(), distinct));
    }
    for (std::size_t d = 0; d < distinct; ++d) {
      const Problem& problem = step.distinct[d].problem;
      const std::string& name = policies[p].names[d];
      auto s = registry.from_name(backend_name, problem, name);  // "Default": cuBLAS's
      if (!s) {
        throw std::runtime_error(fmt::format("{} on {}: no provider rebuilds {}", policies[p].label,
                                             step.distinct[d].label(), name));
      }
      if (const Support support = s->supports(problem); !support) {
        throw std::runtime_error(fmt::format("{} on {}: {} does not support it: {}",
                                             policies[p].label, step.distinct[d].label(), name,
                                             support.reason));
      }
      workspace[d] = std::max(workspace[d], s->workspace_bytes(problem));
      solutions[p].push_back(std::move(s));
    }
  }

  // Every position of the step its own operands: one set each, no rotation.
  std::vector<std::unique_ptr<OperandSets>> operands;
  for (std::size_t at = 0; at < step.order.size(); ++at) {
    const std::size_t d = step.order[at];
    const Problem& problem = step.distinct[d].problem;
    const OperandMemory memory =
        plan_operand_memory(backend, problem, workspace[d], 0.9, 0.0, false);
    if (!memory.rotation.fits) {
      throw std::runtime_error(fmt::format("{} (position {} of the step): operands do not fit: {}",
                                           step.distinct[d].label(), at + 1,
                                           memory.rotation.describe()));
    }
    operands.push_back(std::make_unique<OperandSets>(backend, problem, memory.rotation,
                                                     workspace[d], options.seed + at, 1.0, 0.0));
  }

  const auto stream = static_cast<cudaStream_t>(backend.stream());
  const std::size_t positions = step.order.size();
  const auto run_step = [&](std::size_t p, std::vector<cuda::Event>* events) {
    for (std::size_t at = 0; at < positions; ++at) {
      if (events != nullptr) (*events)[at].record(stream);
      const std::size_t d = step.order[at];
      const RunStatus status =
          solutions[p][d]->run(step.distinct[d].problem, operands[at]->operands(0), stream);
      if (!status) {
        throw std::runtime_error(fmt::format("{} on {}: {} failed: {}", policies[p].label,
                                             step.distinct[d].label(), policies[p].names[d],
                                             status.error));
      }
    }
    if (events != nullptr) events->back().record(stream);
  };

  std::vector<PolicyTimes> out(policies.size());
  for (std::size_t p = 0; p < policies.size(); ++p) {
    out[p].step.name = policies[p].label;
    out[p].gemms.resize(distinct);
    for (std::size_t d = 0; d < distinct; ++d) out[p].gemms[d].name = policies[p].names[d];
  }
  const int timed = std::max(1, options.steps_per_turn);
  std::vector<std::vector<cuda::Event>> events(static_cast<std::size_t>(timed));
  for (auto& e : events) e.resize(positions + 1);
  for (int round = 0; round < options.rounds; ++round) {
    for (std::size_t j = 0; j < policies.size(); ++j) {
      const std::size_t p = round_position(round, j, policies.size());
      run_step(p, nullptr);  // untimed: the step before, in a training loop, is this policy's
      for (auto& e : events) run_step(p, &e);
      events.back().back().synchronize();
      std::vector<double> step_ms;
      std::vector<std::vector<double>> gemm_ms(distinct);
      for (const auto& e : events) {
        step_ms.push_back(elapsed_ms(e.front(), e.back()));
        std::vector<double> per_gemm(distinct, 0.0);
        for (std::size_t at = 0; at < positions; ++at) {
          per_gemm[step.order[at]] += elapsed_ms(e[at], e[at + 1]);
        }
        for (std::size_t d = 0; d < distinct; ++d) gemm_ms[d].push_back(per_gemm[d]);
      }
      finish(out[p].step, step_ms);
      for (std::size_t d = 0; d < distinct; ++d) finish(out[p].gemms[d], gemm_ms[d]);
      if (options.gap_ms > 0) {
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.gap_ms));
      }
    }
  }
  for (auto& t : out) {
    t.step.median_ms = median(t.step.samples_ms);
    for (auto& g : t.gemms) g.median_ms = median(g.samples_ms);
  }
  return out;
}

}  // namespace gemmtune::bench
