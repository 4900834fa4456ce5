#include "bench/llm/baselines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <optional>
#include <thread>

#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_heuristic_top.hpp"
#include "tuner/error.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/output_checker.hpp"
#include "tuner/profiler.hpp"
#include "tuner/round_order.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune::bench {
namespace {

struct Entry {
  std::unique_ptr<Solution> solution;
  Timed timed;
};

}  // namespace

double Timed::relative_standard_error() const {
  if (samples_ms.size() < 2 || median_ms <= 0) return 0;
  return median_standard_error(samples_ms, median_ms) / median_ms;
}

double Baselines::noise(const Timed& a, const Timed& b) {
  const double pooled = 2.0 * std::hypot(a.relative_standard_error(), b.relative_standard_error());
  const std::size_t n = std::min(a.round_medians.size(), b.round_medians.size());
  if (n < 2) return pooled;
  std::vector<double> logs;
  for (std::size_t i = 0; i < n; ++i) {
    if (a.round_medians[i] > 0 && b.round_medians[i] > 0) {
      logs.push_back(std::log(a.round_medians[i] / b.round_medians[i]));
    }
  }
  if (logs.size() < 2) return pooled;
  double mean = 0;
  for (double x : logs) mean += x;
  mean /= static_cast<double>(logs.size());
  double var = 0;
  for (double x : logs) var += (x - mean) * (x - mean);
  var /= static_cast<double>(logs.size() - 1);
  const double paired = 2.0 * std::sqrt(var / static_cast<double>(logs.size()));
  return std::max(pooled, std::expm1(paired));
}

Baselines remeasure(Backend& backend, const Registry& registry, const Problem& problem,
                    const std::string& winner, const RemeasureOptions& options) {
  Baselines out;
  const auto started = std::chrono::steady_clock::now();
  const std::string backend_name = backend.properties().backend;

  // Default first, then the heuristic's ranks, then the winner unless it is Default or one of
  // those ranks. A rank the tuner chose is its very algorithm (a name rebuilds the heuristic's
  // own bytes; a GPU test checks it), and timing it twice as two entries only measured the noise
  // between two positions in a round: up to 3% on an H200 for the same algorithm.
  std::vector<Entry> entries;
  entries.push_back({cuda::make_default_solution(problem), {}});
  auto top = cuda::heuristic_top(problem, options.top);
  const std::size_t top_count = top.size();
  std::size_t winner_rank_entry = 0;  // the winner's entry among the ranks, 0 = none
  for (auto& s : top) {
    if (winner_rank_entry == 0 && s->name() == winner) winner_rank_entry = entries.size();
    entries.push_back({std::move(s), {}});
  }
  const bool winner_is_default = winner == kDefaultSolutionName;
  if (!winner_is_default && winner_rank_entry == 0) {
    auto rebuilt = registry.from_name(backend_name, problem, winner);
    if (!rebuilt) {
      out.winner.name = winner;
      out.winner.error = "no provider knows this name";
    } else {
      entries.push_back({std::move(rebuilt), {}});
    }
  }

  std::size_t workspace = 0;
  for (auto& e : entries) {
    e.timed.name = e.solution->name();
    if (const Support s = e.solution->supports(problem); !s) {
      e.timed.error = s.reason;
      continue;
    }
    workspace = std::max(workspace, e.solution->workspace_bytes(problem));
  }
  if (!entries.front().timed.error.empty()) {
    out.error = fmt::format("Default cannot run: {}", entries.front().timed.error);
    return out;
  }

  // The operands, planned as the tuner plans them.
  out.rotation =
      plan_operand_memory(backend, problem, workspace, options.memory_fraction, std::nullopt, false)
          .rotation;
  if (!out.rotation.fits) {
    out.error = fmt::format("operands do not fit: {}", out.rotation.describe());
    return out;
  }
  OperandSets sets(backend, problem, out.rotation, workspace, options.seed, 1.0, 0.0);
  Profiler profiler(backend, sets, out.rotation.flush, TimingPolicy{}.mode);

  // One phase of one entry; on failure, nullopt and why in `error`.
  auto try_run = [&](Entry& e, const PhaseCaps& caps, Profiler& with,
                     std::string& error) -> std::optional<Measurement> {
    try {
      Measurement m = with.run(*e.solution, problem, caps);
      if (!m.status) {
        error = m.status.error;
        return std::nullopt;
      }
      return m;
    } catch (const DeviceError&) {
      throw;
    } catch (const std::exception& x) {
      error = x.what();
      return std::nullopt;
    }
  };
  // The same for the entry's main time: a failure is the entry's, and ends its measurement.
  auto run = [&](Entry& e, const PhaseCaps& caps, Profiler& with) -> std::optional<Measurement> {
    if (!e.timed.error.empty()) return std::nullopt;
    return try_run(e, caps, with, e.timed.error);
  };
  // One set of interleaved rounds over `which` (round_order.hpp), with `gap_ms` of idle time after
  // every turn; each entry's samples and round medians start afresh.
  auto interleaved_rounds = [&](const std::vector<std::size_t>& which, double gap_ms = 0,
                                Profiler* on = nullptr) {
    Profiler& with = on ? *on : profiler;
    for (std::size_t i : which) {
      entries[i].timed.samples_ms.clear();
      entries[i].timed.round_medians.clear();
    }
    for (int round = 0; round < options.rounds; ++round) {
      for (std::size_t j = 0; j < which.size(); ++j) {
        Entry& e = entries[which[round_position(round, j, which.size())]];
        if (gap_ms <= 0 && options.lead_in_ms > 0) run(e, {0, options.lead_in_ms}, with);
        if (auto m = run(e, options.caps, with)) {
          e.timed.round_medians.push_back(m->stats.median_ms);
          e.timed.samples_ms.insert(e.timed.samples_ms.end(), m->samples_ms.begin(),
                                    m->samples_ms.end());
        }
        if (gap_ms > 0) {  // the profiler has waited for the device: it idles from here
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(gap_ms));
        }
      }
    }
    for (std::size_t i : which) {
      Timed& t = entries[i].timed;
      t.median_ms = t.error.empty() && !t.samples_ms.empty() ? median(t.samples_ms) : 0;
    }
  };

  // The sweep: every entry, to find the best of the top N.
  for (auto& e : entries) run(e, options.warmup, profiler);
  std::vector<std::size_t> all(entries.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  interleaved_rounds(all);
  if (!entries.front().timed.ok()) {
    out.error = fmt::format("Default failed: {}", entries.front().timed.error);
    return out;
  }

  // The best of the top N, and the winner's entry (Default's when Default won).
  const std::size_t top_end = 1 + top_count;
  std::size_t best = 0;
  for (std::size_t i = 1; i < top_end; ++i) {
    if (entries[i].timed.ok() &&
        (best == 0 || entries[i].timed.median_ms < entries[best].timed.median_ms)) {
      best = i;
    }
  }
  const std::size_t winner_index = winner_is_default          ? 0
                                   : winner_rank_entry > 0    ? winner_rank_entry
                                   : entries.size() > top_end ? entries.size() - 1
                                                              : 0;
  for (std::size_t i = 1; i < top_end; ++i) out.top.push_back(entries[i].timed);
  if (best > 0) out.top_best_sweep = entries[best].timed;
  if (winner_is_default || winner_index > 0) out.winner_sweep = entries[winner_index].timed;

  // The evaluation: Default, heuristic #0, the best of the top N and the winner in fresh rounds
  // of their own. The fastest of N medians taken from the rounds that chose it is biased low (the
  // winner's curse: with 8 configurations within noise of one another, by about one and a half
  // standard errors), so the comparisons use samples the choice did not see.
  // The entries of `indices` that exist and have a time, each once, in that order.
  auto distinct_timed = [&](std::initializer_list<std::size_t> indices) {
    std::vector<std::size_t> chosen;
    for (std::size_t i : indices) {
      if (i < entries.size() && entries[i].timed.ok() &&
          std::find(chosen.begin(), chosen.end(), i) == chosen.end()) {
        chosen.push_back(i);
      }
    }
    return chosen;
  };
  const std::vector<std::size_t> picked = distinct_timed({0, 1, best, winner_index});
  interleaved_rounds(picked);
  if (!entries.front().timed.ok()) {
    out.error = fmt::format("Default failed: {}", entries.front().timed.error);
    return out;
  }
  if (options.placement_probe) {
    std::vector<Timed> evaluation;
    for (std::size_t i : picked) evaluation.push_back(entries[i].timed);
    auto probe = [&](std::string what, Profiler* on) {
      interleaved_rounds(picked, 0, on);
      Baselines::Probe p{std::move(what), {}};
      for (std::size_t i : picked) p.timed.push_back(entries[i].timed);
      out.placement_probes.push_back(std::move(p));
    };
    probe("the same operands", nullptr);
    OperandSets second(backend, problem, out.rotation, workspace, options.seed, 1.0, 0.0);
    Profiler on_second(backend, second, out.rotation.flush, TimingPolicy{}.mode);
    probe("a second allocation, the same values", &on_second);
    OperandSets third(backend, problem, out.rotation, workspace, options.seed + 1, 1.0, 0.0);
    Profiler on_third(backend, third, out.rotation.flush, TimingPolicy{}.mode);
    probe("a third allocation, other values", &on_third);
    for (std::size_t k = 0; k < picked.size(); ++k) entries[picked[k]].timed = evaluation[k];
  }

  if (entries.front().timed.median_ms < options.small_below_ms) {
    // The evaluation's entries again, in interleaved rounds of their own: each iteration run as
    // issued (immediate), bursts run back to back, and replays of a captured graph.
    Profiler immediate(backend, sets, out.rotation.flush, TimingMode::Immediate);
    std::vector<std::vector<double>> immediate_ms(picked.size()), burst_ms(picked.size()),
        graph_ms(picked.size());
    std::vector<bool> immediate_failed(picked.size()), burst_failed(picked.size()),
        graph_failed(picked.size());
    std::vector<std::unique_ptr<CapturedRuns>> graphs;
    for (std::size_t k = 0; k < picked.size(); ++k) {
      Entry& e = entries[picked[k]];
      std::string why;
      graphs.push_back(backend.capture_runs(
          [&](void* stream) { return e.solution->run(problem, sets.next(), stream); },
          kBurstIterations, why));
      if (!graphs.back()) {
        out.graph_error = fmt::format("{}: {}", e.timed.name, why);
        graph_failed[k] = true;
      }
    }
    for (int round = 0; round < options.rounds; ++round) {
      for (std::size_t j = 0; j < picked.size(); ++j) {
        const std::size_t k = round_position(round, j, picked.size());
        Entry& e = entries[picked[k]];
        // Diagnostics: a failure costs only the diagnostic, never the entry's main time.
        if (!immediate_failed[k]) {
          std::string why;
          if (auto m = try_run(e, options.caps, immediate, why)) {
            immediate_ms[k].insert(immediate_ms[k].end(), m->samples_ms.begin(),
                                   m->samples_ms.end());
          } else {
            out.immediate_error = fmt::format("{}: {}", e.timed.name, why);
            immediate_failed[k] = true;
          }
        }
        if (!burst_failed[k]) {
          std::string why;
          Measurement b;
          try {
            b = profiler.run_burst(*e.solution, problem, kBurstIterations);
            why = !b.status              ? b.status.error
                  : b.samples_ms.empty() ? std::string("the timer lost the burst's sample")
                                         : std::string();
          } catch (const DeviceError&) {
            throw;
          } catch (const std::exception& x) {
            why = x.what();
          }
          if (why.empty()) {
            burst_ms[k].push_back(b.samples_ms.front());
          } else {
            out.burst_error = fmt::format("{}: {}", e.timed.name, why);
            burst_failed[k] = true;
          }
        }
        if (!graph_failed[k]) {
          std::string why = "the stream was held until the timeout";
          double ms = 0;  // none
          try {
            ms = graphs[k]->replay_ms_per_run().value_or(0.0);
          } catch (const DeviceError&) {
            throw;
          } catch (const std::exception& x) {
            why = x.what();
          }
          if (ms > 0) {
            graph_ms[k].push_back(ms);
          } else {
            out.graph_error = fmt::format("{}: {}", e.timed.name, why);
            graph_failed[k] = true;
          }
        }
      }
    }
    for (std::size_t k = 0; k < picked.size(); ++k) {
      Timed& t = entries[picked[k]].timed;
      if (!immediate_failed[k] && !immediate_ms[k].empty())
        t.immediate_ms = median(immediate_ms[k]);
      if (!burst_failed[k] && !burst_ms[k].empty()) t.burst_ms = median(burst_ms[k]);
      if (!graph_failed[k] && !graph_ms[k].empty()) t.graph_ms = median(graph_ms[k]);
    }
  }

  {  // One numerical check as the tuner makes it (OutputChecker: on the device where the backend
     // compares there): Default as the reference, then Default again as a candidate, timed.
    using Clock = std::chrono::steady_clock;
    Solution& reference = *entries.front().solution;
    sets.reset_check_output();
    if (reference.run(problem, sets.check_operands(), backend.stream())) {
      OutputChecker checker(backend, sets, problem, NumericalCheckOptions{});
      checker.take_reference();
      const auto start = Clock::now();
      sets.reset_check_output();
      if (reference.run(problem, sets.check_operands(), backend.stream())) {
        checker.check_candidate();
        out.check_s = std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
  }

  out.default_solution = entries.front().timed;
  if (top_count > 0) out.heuristic0 = entries[1].timed;
  if (best > 0) out.top_best = entries[best].timed;
  if (winner_is_default || winner_index > 0) out.winner = entries[winner_index].timed;

  if (options.headroom_gap_ms > 0) {
    out.headroom_started_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    interleaved_rounds(distinct_timed({0, best, winner_index}), options.headroom_gap_ms);
    out.default_headroom = entries.front().timed;
    if (best > 0) out.top_best_headroom = entries[best].timed;
    if (winner_is_default || winner_index > 0) out.winner_headroom = entries[winner_index].timed;
  }
  return out;
}

}  // namespace gemmtune::bench
