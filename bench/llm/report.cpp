#include "bench/llm/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune::bench {
namespace {

// A time the re-measurement takes beside the queued per-iteration one, for the decode problems.
struct OtherTiming {
  const char* what;
  double Timed::*ms;
};

// The targets of issue 4.
constexpr double kTargetGeomeanAll = 1.05;
constexpr double kTargetGeomeanDecode = 1.10;
constexpr double kTargetMinSpeedup = 0.98;
constexpr double kTargetMeanTuningS = 1.0;

double us(const Timed& t) {
  return t.median_ms * 1e3;
}

std::string us_cell(const Timed& t) {
  return t.ok() ? fmt::format("{:.1f}", us(t)) : "—";
}

struct Mean {
  double log_sum = 0;
  double sum = 0;
  int count = 0;
  void add(double x) {
    if (x <= 0) return;
    log_sum += std::log(x);
    sum += x;
    ++count;
  }
  double geometric() const { return count ? std::exp(log_sum / count) : 0; }
  double arithmetic() const { return count ? sum / count : 0; }
};

Mean mean_over(const std::vector<BenchRow>& rows, const std::function<bool(const BenchRow&)>& in,
               double (BenchRow::*value)() const) {
  Mean m;
  for (const auto& r : rows) {
    if (r.ok() && in(r)) m.add((r.*value)());
  }
  return m;
}

std::string verdict(bool met) {
  return met ? "**met**" : "**missed**";
}

// The device's state in the tuner's finalists' phases beside the benchmark's re-measurement, over
// every problem and over those where the winner was slower than the best of the top 8: where the
// two states differ, so may the faster of two configurations.
std::string render_device_states(const std::vector<BenchRow>& rows) {
  struct Side {
    Mean tuner_clock, tuner_power, bench_clock, bench_power, clock_ratio;
    void add(const BenchRow& r) {
      tuner_clock.add(r.tuner_state.sm_clock_mhz);
      tuner_power.add(r.tuner_state.power_w);
      bench_clock.add(r.bench_state.sm_clock_mhz);
      bench_power.add(r.bench_state.power_w);
      if (r.tuner_state.sm_clock_mhz > 0) {
        clock_ratio.add(r.bench_state.sm_clock_mhz / r.tuner_state.sm_clock_mhz);
      }
    }
  };
  Side all, slower;
  int problems = 0, slower_problems = 0;
  for (const auto& r : rows) {
    if (!r.ok() || r.tuner_state.samples == 0 || r.bench_state.samples == 0) continue;
    ++problems;
    all.add(r);
    if (r.slower_than_top()) ++slower_problems, slower.add(r);
  }
  if (problems == 0) return "";
  std::string md = fmt::format(
      "\nDevice state (NVML samples, means over each window; {} problems with samples in both): "
      "SM clock {:.0f} MHz and {:.0f} W while the tuner measured its finalists (measurement, "
      "confirmation, trial), {:.0f} MHz and {:.0f} W while the benchmark measured again (sweep "
      "and evaluation); the benchmark's clock over the tuner's {:.3f}× (geometric mean of the "
      "problems' ratios).",
      problems, all.tuner_clock.arithmetic(), all.tuner_power.arithmetic(),
      all.bench_clock.arithmetic(), all.bench_power.arithmetic(), all.clock_ratio.geometric());
  if (slower_problems > 0) {
    md += fmt::format(
        " On the {} where the winner was slower than the best of the top 8: {:.0f} MHz and {:.0f} "
        "MHz, {:.3f}×.",
        slower_problems, slower.tuner_clock.arithmetic(), slower.bench_clock.arithmetic(),
        slower.clock_ratio.geometric());
  }
  return md + "\n";
}

// The evaluation with clock headroom beside the one at the power limit: the speedups, the floor,
// and the comparison with the best of the top 8 in each state and in both.
std::string render_headroom(const std::vector<BenchRow>& rows) {
  Mean winner, top, winner_capped, top_capped, clock, power;
  double lowest = std::numeric_limits<double>::infinity();
  std::string lowest_label;
  std::vector<std::string> slower, both, capped_only;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    if (!r.has_headroom()) continue;
    winner.add(r.winner_speedup_with_headroom());
    top.add(r.top_speedup_with_headroom());
    winner_capped.add(r.winner_speedup());
    top_capped.add(r.top_speedup());
    clock.add(r.headroom_state.sm_clock_mhz);
    power.add(r.headroom_state.power_w);
    if (r.winner_speedup_with_headroom() < lowest) {
      lowest = r.winner_speedup_with_headroom();
      lowest_label = fmt::format("#{} {}", i + 1, r.shape.label());
    }
    const Baselines& b = r.baselines;
    const double ratio = b.winner_headroom.median_ms / b.top_best_headroom.median_ms;
    if (r.slower_than_top_with_headroom()) {
      slower.push_back(fmt::format("#{} ({:.3f})", i + 1, ratio));
      if (r.slower_than_top_in_both_states()) both.push_back(fmt::format("#{}", i + 1));
    } else if (r.slower_than_top()) {
      capped_only.push_back(fmt::format("#{} ({:.3f} at the limit, {:.3f} with headroom)", i + 1,
                                        r.winner_over_top(), ratio));
    }
  }
  if (winner.count == 0) return "";
  std::string md = fmt::format(
      "\nWith clock headroom ({} problems: Default, the best of the top 8 and the winner again "
      "with idle time after every turn{}): geomean speedup over "
      "Default {:.3f}× for the winner and {:.3f}× for the best of the top 8 (at the power limit, "
      "in the evaluation: {:.3f}× and {:.3f}×); lowest winner {:.3f}× ({}), {} the {:.2f}× floor. "
      "The winner is slower than the best of the top 8 beyond noise with headroom on {} of "
      "them{}{}",
      winner.count,
      clock.count > 0 ? fmt::format("; SM clock {:.0f} MHz and {:.0f} W on average",
                                    clock.arithmetic(), power.arithmetic())
                      : std::string(),
      winner.geometric(), top.geometric(), winner_capped.geometric(), top_capped.geometric(),
      lowest, lowest_label, lowest >= kTargetMinSpeedup ? "above" : "**below**", kTargetMinSpeedup,
      slower.size(), slower.empty() ? "" : ": ", fmt::join(slower, ", "));
  md += fmt::format("; in both states (at the limit and with headroom) on {}{}{}. ", both.size(),
                    both.empty() ? "" : ": ", fmt::join(both, ", "));
  if (!capped_only.empty()) {
    md += fmt::format(
        "The best of the top 8 beat the winner at the power limit alone, and was not faster "
        "beyond noise with headroom, on {}: {}.",
        capped_only.size(), fmt::join(capped_only, "; "));
  }
  return md + "\n";
}

}  // namespace

bool BenchRow::ok() const {
  return error.empty() && tuning.ok() && baselines.error.empty() &&
         baselines.default_solution.ok() && baselines.winner.ok() && baselines.top_best.ok();
}

double BenchRow::winner_speedup() const {
  return ok() ? baselines.default_solution.median_ms / baselines.winner.median_ms : 0;
}

double BenchRow::top_speedup() const {
  return ok() ? baselines.default_solution.median_ms / baselines.top_best.median_ms : 0;
}

double BenchRow::heuristic0_speedup() const {
  return ok() && baselines.heuristic0.ok()
             ? baselines.default_solution.median_ms / baselines.heuristic0.median_ms
             : 0;
}

double BenchRow::winner_over_top() const {
  return ok() ? baselines.winner.median_ms / baselines.top_best.median_ms : 0;
}

double BenchRow::noise() const {
  if (!ok()) return 0;
  return std::max(Baselines::noise(baselines.winner, baselines.top_best),
                  Baselines::noise(baselines.winner, baselines.default_solution));
}

bool BenchRow::slower_than_top() const {
  return ok() && winner_over_top() - 1 > Baselines::noise(baselines.winner, baselines.top_best);
}

bool BenchRow::slower_than_top_in_sweep() const {
  const Timed& w = baselines.winner_sweep;
  const Timed& t = baselines.top_best_sweep;
  return ok() && w.ok() && t.ok() && w.median_ms / t.median_ms - 1 > Baselines::noise(w, t);
}

bool BenchRow::has_headroom() const {
  const Baselines& b = baselines;
  return ok() && b.default_headroom.ok() && b.winner_headroom.ok() && b.top_best_headroom.ok();
}

double BenchRow::winner_speedup_with_headroom() const {
  const Baselines& b = baselines;
  return has_headroom() ? b.default_headroom.median_ms / b.winner_headroom.median_ms : 0;
}

double BenchRow::top_speedup_with_headroom() const {
  const Baselines& b = baselines;
  return has_headroom() ? b.default_headroom.median_ms / b.top_best_headroom.median_ms : 0;
}

bool BenchRow::slower_than_top_with_headroom() const {
  const Timed& w = baselines.winner_headroom;
  const Timed& t = baselines.top_best_headroom;
  return has_headroom() && w.median_ms / t.median_ms - 1 > Baselines::noise(w, t);
}

bool BenchRow::slower_than_top_in_both_states() const {
  return slower_than_top() && (!has_headroom() || slower_than_top_with_headroom());
}

double BenchRow::estimated_check_s() const {
  // Check runs: two for a candidate that passed (the tuned scalars, then the others: the LLM
  // benchmark's Default runs both), one for a candidate wrong under the tuned scalars, two for
  // one wrong only under the others.
  int runs = 0;
  for (const auto& c : tuning.candidates) {
    if (c.disposition == Disposition::Winner || c.disposition == Disposition::Slower) runs += 2;
    if (c.disposition == Disposition::Incorrect) runs += c.reason.starts_with("at alpha") ? 2 : 1;
  }
  return runs * baselines.check_s;
}

std::string short_solution_name(const std::string& name) {
  if (const auto skinny = cuda::parse_skinny_solution_name(name)) {
    if (const auto* core = std::get_if<cuda::SkinnyConfig>(&*skinny)) {
      return fmt::format("skinny r{} t{}", core->rows, core->threads);
    }
    if (const auto* tc = std::get_if<cuda::SkinnyTcConfig>(&*skinny)) {
      return fmt::format("skinny-tc m{} w{}", tc->m_tiles, tc->warps);
    }
    const auto late = [](cuda::SkinnyPrefetch p) {
      return p == cuda::SkinnyPrefetch::late ? " late" : "";
    };
    if (const auto* bulk = std::get_if<cuda::SkinnyBulkConfig>(&*skinny)) {
      return fmt::format("skinny-bulk m{} w{} kb{} s{}{}", bulk->m_tiles, bulk->warps,
                         bulk->k_boxes, bulk->stages, late(bulk->prefetch));
    }
    const auto& wg = std::get<cuda::SkinnyWgmmaConfig>(*skinny);
    return fmt::format("skinny-wgmma m{} g{} kb{} s{}{}", wg.m_tiles, wg.groups, wg.k_boxes,
                       wg.stages, late(wg.prefetch));
  }
  const auto c = cuda::parse_algo_name(name);
  if (!c) return name;
  std::string out = fmt::format("id{} t{} s{}", c->id, c->tile, c->stages);
  if (c->splitk > 1) out += fmt::format(" k{}/r{}", c->splitk, c->reduction);
  if (c->swizzle) out += fmt::format(" sw{}", c->swizzle);
  if (c->custom) out += fmt::format(" c{}", c->custom);
  if (c->inner) out += fmt::format(" i{}", c->inner);
  if (c->cluster) out += fmt::format(" cl{}", c->cluster);
  return out;
}

std::string render_markdown(const ReportHeader& h, const std::vector<BenchRow>& rows,
                            const std::vector<LlmShape>& not_run, bool finished) {
  std::string md = "# gemmtune LLM GEMM benchmark\n\n";
  if (!finished) md += "**Run in progress: partial results.**\n\n";
  md += fmt::format("- device: {}\n- versions: {}\n- date: {}\n- command: `{}`\n{}\n", h.device,
                    h.versions, h.date, h.command, h.conditions);

  md += "## Results\n\n";
  md +=
      "| # | problem | signature | class | dtype | Default µs | heur#0 µs | top-8 best µs | "
      "winner µs | winner | ×Default winner | ×Default top-8 | winner/top-8 | noise % | "
      "tune s | cand. |\n";
  md += "|--:|---|---|---|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|\n";
  int index = 0;
  for (const auto& r : rows) {
    ++index;
    const Problem& p = r.shape.problem;
    const std::string params = p.params_signature();
    const std::string signature = params.substr(0, params.find("_ld_"));
    const std::string dtype = p.dtype() == DType::BFloat16 ? "bf16" : "fp16";
    if (!r.ok()) {
      std::string why = !r.error.empty()             ? r.error
                        : !r.tuning.error.empty()    ? r.tuning.error
                        : !r.baselines.error.empty() ? r.baselines.error
                                                     : r.baselines.winner.error;
      std::replace(why.begin(), why.end(), '\n', ' ');
      std::replace(why.begin(), why.end(), '|', '/');
      md += fmt::format("| {} | {} | `{}` | {} | {} | {} | failed: {} ||||||||||\n", index,
                        r.shape.label(), signature, to_string(r.shape.gemm_class), dtype,
                        us_cell(r.baselines.default_solution), why);
      continue;
    }
    const auto& b = r.baselines;
    const std::string flag = r.slower_than_top() ? " ⚠" : "";
    md += fmt::format(
        "| {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f}{} | {:.1f} "
        "| {:.2f} | {} |\n",
        index, r.shape.label(), signature, to_string(r.shape.gemm_class), dtype,
        us_cell(b.default_solution), us_cell(b.heuristic0), us_cell(b.top_best), us_cell(b.winner),
        short_solution_name(r.tuning.winner), r.winner_speedup(), r.top_speedup(),
        r.winner_over_top(), flag, 100 * r.noise(), r.tuning.elapsed_s, r.tuning.candidates.size());
  }

  // Summary against the targets.
  auto all = [](const BenchRow&) { return true; };
  auto of = [](GemmClass c) { return [c](const BenchRow& r) { return r.shape.gemm_class == c; }; };
  const Mean w_all = mean_over(rows, all, &BenchRow::winner_speedup);
  const Mean w_decode = mean_over(rows, of(GemmClass::Decode), &BenchRow::winner_speedup);
  const Mean w_prefill = mean_over(rows, of(GemmClass::Prefill), &BenchRow::winner_speedup);
  const Mean w_bwd = mean_over(rows, of(GemmClass::Backward), &BenchRow::winner_speedup);
  const Mean t_all = mean_over(rows, all, &BenchRow::top_speedup);
  const Mean t_decode = mean_over(rows, of(GemmClass::Decode), &BenchRow::top_speedup);
  const Mean h_all = mean_over(rows, all, &BenchRow::heuristic0_speedup);
  const Mean h_decode = mean_over(rows, of(GemmClass::Decode), &BenchRow::heuristic0_speedup);

  double min_speedup = std::numeric_limits<double>::infinity();
  std::string min_label = "—";
  // The lowest where a solution replaced Default: where Default was kept the ratio is exactly 1,
  // and the minimum alone would hide how close the replacements came to the floor.
  double min_replaced = std::numeric_limits<double>::infinity();
  std::string min_replaced_label;
  int compared_with_top = 0;  // rows whose winner is not itself the best of the top 8
  std::vector<std::string> slower, slower_in_sweep;
  Mean tuning, tuning_decode, tuning_prefill, tuning_bwd;
  double tuning_max = 0;
  int failed = 0, default_won = 0, split_won = 0, own_won = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BenchRow& r = rows[i];
    if (r.tuning.ok()) {
      tuning.add(r.tuning.elapsed_s);
      (r.shape.gemm_class == GemmClass::Decode    ? tuning_decode
       : r.shape.gemm_class == GemmClass::Prefill ? tuning_prefill
                                                  : tuning_bwd)
          .add(r.tuning.elapsed_s);
      tuning_max = std::max(tuning_max, r.tuning.elapsed_s);
    }
    if (!r.ok()) {
      ++failed;
      continue;
    }
    if (r.winner_speedup() < min_speedup) {
      min_speedup = r.winner_speedup();
      min_label = fmt::format("#{} {}", i + 1, r.shape.label());
    }
    if (r.tuning.winner != kDefaultSolutionName && r.winner_speedup() < min_replaced) {
      min_replaced = r.winner_speedup();
      min_replaced_label = fmt::format("#{} {}", i + 1, r.shape.label());
    }
    if (r.baselines.winner.name != r.baselines.top_best.name) ++compared_with_top;
    if (r.slower_than_top()) {
      slower.push_back(fmt::format("#{} {} ({:.3f}, noise {:.1f}%)", i + 1, r.shape.label(),
                                   r.winner_over_top(), 100 * r.noise()));
    }
    if (r.slower_than_top_in_sweep()) {
      const Baselines& b = r.baselines;
      slower_in_sweep.push_back(fmt::format("#{} ({:.3f})", i + 1,
                                            b.winner_sweep.median_ms / b.top_best_sweep.median_ms));
    }
    if (r.tuning.winner == kDefaultSolutionName) ++default_won;
    const auto config = cuda::parse_algo_name(r.tuning.winner);
    if (config && config->splitk > 1) ++split_won;
    if (cuda::parse_skinny_solution_name(r.tuning.winner)) ++own_won;
  }
  const bool any = w_all.count > 0;

  md += "\n## Summary against the targets\n\n";
  md += "| target | measured | |\n|---|---|---|\n";
  md += fmt::format(
      "| geomean winner/Default speedup, all ≥ {:.2f}× | {:.3f}× over {} problems | {} |\n",
      kTargetGeomeanAll, w_all.geometric(), w_all.count,
      verdict(any && w_all.geometric() >= kTargetGeomeanAll));
  md += fmt::format("| geomean speedup, decode ≥ {:.2f}× | {:.3f}× over {} problems | {} |\n",
                    kTargetGeomeanDecode, w_decode.geometric(), w_decode.count,
                    verdict(w_decode.count > 0 && w_decode.geometric() >= kTargetGeomeanDecode));
  // The decode target again on burst and graph-replay times (Profiler::run_burst, Backend::capture_runs):
  // per-iteration events add about the same device time to every solution's sample, which
  // narrows the ratios of the smallest GEMMs; a graph has no launch gaps either.
  for (const OtherTiming way :
       {OtherTiming{"back to back (burst time, no per-iteration events)", &Timed::burst_ms},
        OtherTiming{"replayed from a CUDA graph (graph time, no launch gaps)", &Timed::graph_ms}}) {
    Mean decode;
    for (const auto& r : rows) {
      if (!r.ok() || r.shape.gemm_class != GemmClass::Decode) continue;
      const auto& b = r.baselines;
      if (b.default_solution.*way.ms > 0 && b.winner.*way.ms > 0) {
        decode.add(b.default_solution.*way.ms / b.winner.*way.ms);
      }
    }
    md += fmt::format("| geomean speedup, decode ≥ {:.2f}×, {} | {:.3f}× over {} problems | {} |\n",
                      kTargetGeomeanDecode, way.what, decode.geometric(), decode.count,
                      verdict(decode.count > 0 && decode.count == w_decode.count &&
                              decode.geometric() >= kTargetGeomeanDecode));
  }
  const std::string replaced =
      min_replaced_label.empty()
          ? std::string()
          : fmt::format("; lowest where a solution replaced Default {:.3f}× ({})", min_replaced,
                        min_replaced_label);
  md += fmt::format("| no problem below {:.2f}× of Default | min {:.3f}× ({}){} | {} |\n",
                    kTargetMinSpeedup, any ? min_speedup : 0.0, min_label, replaced,
                    verdict(any && min_speedup >= kTargetMinSpeedup));
  md += fmt::format(
      "| winner not slower than the best of the top 8 beyond noise | {} of {} slower ({} where "
      "the winner is not that entry){}{} | {} |\n",
      slower.size(), w_all.count, compared_with_top, slower.empty() ? "" : ": ",
      fmt::join(slower, "; "), verdict(any && slower.empty()));
  {
    std::vector<std::string> in_both;
    int with_headroom = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].has_headroom()) ++with_headroom;
      if (rows[i].slower_than_top_in_both_states()) in_both.push_back(fmt::format("#{}", i + 1));
    }
    if (with_headroom > 0) {
      md += fmt::format(
          "| the same, in both device states: at the power limit (the evaluation) and with clock "
          "headroom ({} problems; any others at the limit alone) | {} of {} slower in both{}{} | "
          "{} |\n",
          with_headroom, in_both.size(), w_all.count, in_both.empty() ? "" : ": ",
          fmt::join(in_both, ", "), verdict(any && in_both.empty()));
    }
  }
  md += fmt::format(
      "| mean tuning time ≤ {:.1f} s per problem | {:.2f} s over {} problems (max {:.2f} s) | {} "
      "|\n",
      kTargetMeanTuningS, tuning.arithmetic(), tuning.count, tuning_max,
      verdict(tuning.count > 0 && tuning.arithmetic() <= kTargetMeanTuningS));

  md += "\nFor comparison (geomean speedup over Default):\n\n";
  md += "| | all | decode | prefill | bwd |\n|---|--:|--:|--:|--:|\n";
  md += fmt::format("| gemmtune winner | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", w_all.geometric(),
                    w_decode.geometric(), w_prefill.geometric(), w_bwd.geometric());
  md += fmt::format("| best of heuristic top 8 | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n",
                    t_all.geometric(), t_decode.geometric(),
                    mean_over(rows, of(GemmClass::Prefill), &BenchRow::top_speedup).geometric(),
                    mean_over(rows, of(GemmClass::Backward), &BenchRow::top_speedup).geometric());
  md += fmt::format(
      "| heuristic #0 | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", h_all.geometric(),
      h_decode.geometric(),
      mean_over(rows, of(GemmClass::Prefill), &BenchRow::heuristic0_speedup).geometric(),
      mean_over(rows, of(GemmClass::Backward), &BenchRow::heuristic0_speedup).geometric());
  md +=
      fmt::format("| mean tuning s | {:.2f} | {:.2f} | {:.2f} | {:.2f} |\n", tuning.arithmetic(),
                  tuning_decode.arithmetic(), tuning_prefill.arithmetic(), tuning_bwd.arithmetic());
  md += fmt::format(
      "\nWinners: {} Default, {} gemmtune skinny kernel, {} cuBLASLt split-K, {} other cuBLASLt; "
      "{} problem(s) failed.\n",
      default_won, own_won, split_won, w_all.count - default_won - own_won - split_won, failed);
  md += fmt::format(
      "\nThe best of the top 8 is chosen in a sweep of every rank and timed, with Default, "
      "heuristic #0 and the winner, in fresh rounds (the evaluation) that the rows and the "
      "summary use. On the sweep's own times, where it is the fastest of 8 medians of the rounds "
      "that chose it (biased low), the winner is slower beyond noise on {} of {} problems{}{}.\n",
      slower_in_sweep.size(), w_all.count, slower_in_sweep.empty() ? "" : ": ",
      fmt::join(slower_in_sweep, ", "));

  md += render_device_states(rows);
  md += render_headroom(rows);

  // Diagnostics: the decode problems timed back to back and as issued, and the numerical checks
  // inside tuning time.
  for (const OtherTiming other :
       {OtherTiming{
            "burst timing (20 iterations queued behind a held stream between one pair of "
            "events, then run back to back: the device time a program running its GEMMs one "
            "after another sees)",
            &Timed::burst_ms},
        OtherTiming{
            "graph timing (20 iterations captured into a CUDA graph, replayed between one pair "
            "of events queued behind a held stream: the device time a program that captures "
            "its decode step into a graph sees, with neither per-iteration events nor launch "
            "gaps)",
            &Timed::graph_ms},
        OtherTiming{
            "immediate timing (each iteration run as soon as it is issued, so where the host "
            "needs longer to issue a GEMM than the device to run it, as in an eager program, "
            "the samples hold the host's time)",
            &Timed::immediate_ms}}) {
    Mean g_winner, g_top, g_h0;
    double gap_us = 0;  // Default's time this way minus its queued per-iteration time, summed
    for (const auto& r : rows) {
      if (!r.ok() || r.shape.gemm_class != GemmClass::Decode) continue;
      const auto& b = r.baselines;
      const double d = b.default_solution.*other.ms;
      if (d <= 0 || b.winner.*other.ms <= 0 || b.top_best.*other.ms <= 0) continue;
      g_winner.add(d / b.winner.*other.ms);
      g_top.add(d / b.top_best.*other.ms);
      if (b.heuristic0.*other.ms > 0) g_h0.add(d / b.heuristic0.*other.ms);
      gap_us += 1e3 * (d - b.default_solution.median_ms);
    }
    if (g_winner.count == 0) continue;
    md += fmt::format(
        "\nDecode under {} ({} problems, the same winners): geomean speedup over Default {:.3f}× "
        "for the winner, {:.3f}× for the best of the top 8 (as chosen by the queued "
        "per-iteration times), {:.3f}× for heuristic #0. Default's time this way is {:+.1f} µs "
        "from its queued per-iteration time on average.\n",
        other.what, g_winner.count, g_winner.geometric(), g_top.geometric(), g_h0.geometric(),
        gap_us / g_winner.count);
  }
  Mean check;
  for (const auto& r : rows) {
    if (r.tuning.ok() && r.baselines.check_s > 0) check.add(r.estimated_check_s());
  }
  if (check.count > 0) {
    md += fmt::format(
        "\nNumerical checks: one check run (a run into the check C, compared with Default's output "
        "on the device) × the check runs the tuner made (two per candidate that passed: under the "
        "tuned scalars and under alpha = 0.75, beta = -0.5) comes to {:.2f} s per problem on "
        "average, of the {:.2f} s mean tuning time.\n",
        check.arithmetic(), tuning.arithmetic());
  }
  if (!not_run.empty()) {
    std::vector<std::string> labels;
    for (const auto& s : not_run) {
      labels.push_back(
          fmt::format("{} {}", s.label(), s.problem.dtype() == DType::BFloat16 ? "bf16" : "fp16"));
    }
    md += fmt::format("\nNot run (time budget): {} problem(s): {}.\n", not_run.size(),
                      fmt::join(labels, "; "));
  }
  return md;
}

}  // namespace gemmtune::bench
