#include "bench/llm/details.hpp"

#include <fmt/format.h>

#include <map>

namespace gemmtune::bench {
namespace {

std::string tuner_view(const TuningReport& report, const std::string& name) {
  for (const auto& c : report.candidates) {
    if (c.solution != name) continue;
    std::string out = fmt::format("{} {:.1f} µs ({} it)", to_string(c.disposition),
                                  c.stats.median_ms * 1e3, c.stats.iterations);
    if (!c.reason.empty()) out += fmt::format(": {}", c.reason);
    return out;
  }
  return "not among the tuner's candidates";
}

}  // namespace

std::string render_details(const std::vector<BenchRow>& rows) {
  std::string md = "# gemmtune LLM GEMM benchmark: details\n";
  int index = 0;
  for (const auto& r : rows) {
    ++index;
    const Problem& p = r.shape.problem;
    md += fmt::format("\n## #{} {} — {},{}\n\n", index, r.shape.label(), p.op_signature(),
                      p.params_signature());
    if (!r.error.empty()) md += fmt::format("error: {}\n", r.error);
    const TuningReport& t = r.tuning;
    std::map<Disposition, int> count;
    double device_ms[2] = {0, 0};  // screened out / failed etc., measured
    for (const auto& c : t.candidates) {
      ++count[c.disposition];
      const double ms = c.stats.iterations * c.stats.mean_ms;
      (c.disposition == Disposition::Winner || c.disposition == Disposition::Slower
           ? device_ms[1]
           : device_ms[0]) += ms;
    }
    md += fmt::format(
        "- tuning: {:.2f} s, {} candidates: {} winner, {} slower, {} screened out, {} unsupported, "
        "{} failed, {} incorrect; timed device time ≈ {:.0f} ms in last phases of the eliminated, "
        "{:.0f} ms in the finalists' last phase (the confirmation's for its contenders); rotation "
        "{}\n",
        t.elapsed_s, t.candidates.size(), count[Disposition::Winner], count[Disposition::Slower],
        count[Disposition::ScreenedOut], count[Disposition::Unsupported],
        count[Disposition::Failed], count[Disposition::Incorrect], device_ms[0], device_ms[1],
        t.rotation.describe());
    if (!t.error.empty()) md += fmt::format("- tuning error: {}\n", t.error);
    if (!t.phases.empty()) md += fmt::format("- tuning phases: {}\n", describe_phases(t));
    if (r.tuner_state.samples > 0 || r.bench_state.samples > 0) {
      md += fmt::format(
          "- device state: {} while the tuner measured its finalists; {} while the benchmark "
          "measured again\n",
          describe(r.tuner_state), describe(r.bench_state));
    }
    md += fmt::format("- tuner: winner {} {:.2f} µs, Default {:.2f} µs\n", t.winner,
                      t.winner_stats.median_ms * 1e3, t.default_stats.median_ms * 1e3);
    for (const auto& c : t.candidates) {  // each one the trials measured, if any (tuner.hpp)
      if (c.reason.find("in the trial") != std::string::npos) {
        md += fmt::format("- tuner's trial: {} {}: {}\n", c.solution, to_string(c.disposition),
                          c.reason);
      }
    }
    const Baselines& b = r.baselines;
    if (!b.error.empty()) md += fmt::format("- re-measurement error: {}\n", b.error);
    auto line = [&](const char* what, const Timed& x) {
      std::vector<std::string> rounds;
      for (double ms : x.round_medians) rounds.push_back(fmt::format("{:.2f}", ms * 1e3));
      md += fmt::format(
          "- {}: {} {:.2f} µs{}{}{} (round medians {}){}\n", what, x.name, x.median_ms * 1e3,
          x.burst_ms > 0 ? fmt::format(", burst {:.2f} µs", x.burst_ms * 1e3) : "",
          x.graph_ms > 0 ? fmt::format(", graph {:.2f} µs", x.graph_ms * 1e3) : "",
          x.immediate_ms > 0 ? fmt::format(", immediate {:.2f} µs", x.immediate_ms * 1e3) : "",
          fmt::join(rounds, ", "), x.error.empty() ? "" : fmt::format(" error: {}", x.error));
    };
    line("re-measured Default", b.default_solution);
    line("re-measured winner", b.winner);
    line("re-measured heuristic #0", b.heuristic0);
    line("re-measured best of the top N", b.top_best);
    line("sweep's best of the top N", b.top_best_sweep);
    line("sweep's winner", b.winner_sweep);
    if (b.default_headroom.ok()) {
      line("with headroom, Default", b.default_headroom);
      line("with headroom, best of the top N", b.top_best_headroom);
      line("with headroom, winner", b.winner_headroom);
      if (r.headroom_state.samples > 0) {
        md += fmt::format("- device state with headroom: {}\n", describe(r.headroom_state));
      }
    }
    for (const auto& probe : b.placement_probes) {
      for (const Timed& x : probe.timed) line(("probe on " + probe.what).c_str(), x);
    }
    md += fmt::format(
        "- rotation {}; one numerical check {:.3f} s, the tuner's ≈ {:.2f} s{}{}{}\n",
        b.rotation.describe(), b.check_s, r.estimated_check_s(),
        b.burst_error.empty() ? "" : fmt::format("; burst timing: {}", b.burst_error),
        b.graph_error.empty() ? "" : fmt::format("; graph timing: {}", b.graph_error),
        b.immediate_error.empty() ? "" : fmt::format("; immediate timing: {}", b.immediate_error));
    int rank = 0;
    for (const Timed& x : b.top) {
      md += fmt::format("  - rank {} (sweep): {:.2f} µs {} — tuner: {}{}\n", rank++,
                        x.median_ms * 1e3, x.name, tuner_view(t, x.name),
                        x.error.empty() ? "" : fmt::format(" (error: {})", x.error));
    }
  }
  return md;
}

}  // namespace gemmtune::bench
