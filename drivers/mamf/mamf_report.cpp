#include "drivers/mamf/mamf_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gemmtune::mamf {
namespace {

std::string percent_change(double value, double reference) {
  if (reference <= 0) return "n/a";
  return fmt::format("{:+.1f}%", 100.0 * (value / reference - 1.0));
}

void append_best(std::string& out, const SweepSummary& s) {
  out += fmt::format("mean:   {:.1f} TFLOPS @ {} (MxNxK)\n", s.best().mean,
                     s.best_mean_shape().text());
  out += fmt::format("median: {:.1f} TFLOPS @ {} (MxNxK)\n", s.best().median,
                     s.best_median_shape().text());
  out +=
      fmt::format("max:    {:.1f} TFLOPS @ {} (MxNxK)\n", s.best().max, s.best_max_shape().text());
}

}  // namespace

std::string format_header(const HeaderInfo& h) {
  std::string out =
      fmt::format("\nBenchmark started on {}\n\n** Command line:\n{}\n\n** Dtype: {}\n\n",
                  h.started_at, h.command_line, h.dtype);
  out += fmt::format("** Platform/Device info:\n- {}\n- {}\n\n", h.platform, h.device);
  out += "** Critical software versions:\n";
  for (const auto& [key, value] : h.versions) out += fmt::format("- {}={}\n", key, value);
  out += "\n** Measurement:\n";
  for (const auto& line : h.measurement) out += fmt::format("- {}\n", line);
  if (!h.configuration.empty()) out += "\n** Configuration:\n" + h.configuration;
  // mamf-finder.py's lines as it writes them: its version on a line of its own (scripts match
  // "benchmark version: (\d+)$"), and two blank lines after the rule.
  out += "\n** Additional notes:\n- benchmark version: 2\n- written by gemmtune mamf\n";
  out += h.notes.empty() ? std::string("\n") : fmt::format("{}\n", h.notes);
  out += fmt::format("\n{}\n\n\n", std::string(80, '-'));
  return out;
}

std::string format_warmup(const WarmupResult& w) {
  const std::string head = "Warming up the accelerator until timings settle ... ";
  if (w.skipped) {
    return head + fmt::format("skipped ({})\n",
                              w.skip_reason.empty() ? "--max-warmup-seconds 0" : w.skip_reason);
  }
  if (w.interrupted) return head + fmt::format("interrupted after {:.1f} s\n", w.seconds);
  if (w.settled) {
    return head + fmt::format(
                      "settled after {:.1f} s ({} windows, the last ones within {:.2f}%, {:.1f} "
                      "TFLOPS)\n",
                      w.seconds, w.windows, w.spread_percent, w.last_tflops);
  }
  return head + fmt::format(
                    "not settled after {:.1f} s ({} windows, last spread {:.2f}%, {:.1f} "
                    "TFLOPS); measuring anyway\n",
                    w.seconds, w.windows, w.spread_percent, w.last_tflops);
}

std::string format_shape_line(int index, const ShapeResult& r, const SweepSummary& s) {
  return fmt::format(
      "{:>6} | {:6.1f}(mean) {:6.1f}(median) {:6.1f}(max) @ {:<20} | best: {:6.1f}(mean) "
      "{:6.1f}(median) {:6.1f}(max) TFLOPS\n",
      index, r.tflops.mean, r.tflops.median, r.tflops.max, r.shape.text(), s.best().mean,
      s.best().median, s.best().max);
}

std::string format_tuned_line(const ShapeResult& t, const ShapeResult& baseline,
                              const SweepSummary& s) {
  return fmt::format(
      "{:>6} | {:6.1f}(mean) {:6.1f}(median) {:6.1f}(max) @ {:<20} | best: {:6.1f}(mean) "
      "{:6.1f}(median) {:6.1f}(max) TFLOPS | {} {}\n",
      "tuned", t.tflops.mean, t.tflops.median, t.tflops.max, t.shape.text(), s.best().mean,
      s.best().median, s.best().max, percent_change(t.tflops.mean, baseline.tflops.mean),
      t.solution);
}

std::string format_elapsed(double seconds) {
  const auto total = static_cast<long long>(std::floor(std::max(seconds, 0.0)));
  const long long days = total / 86400;
  // As Python's str(timedelta): "1 day, 1:00:00" past 24 hours.
  const std::string day_part =
      days == 0 ? std::string() : fmt::format("{} day{}, ", days, days == 1 ? "" : "s");
  return fmt::format("{}{}:{:02}:{:02}", day_part, (total / 3600) % 24, (total / 60) % 60,
                     total % 60);
}

std::string format_summary(const SummaryInfo& info) {
  const SweepSummary& b = *info.baseline;
  std::string out = "\n\n";
  if (info.interrupted) {
    out += fmt::format("Interrupted: {} of {} shapes were measured{}\n\n", b.shapes(),
                       info.planned_shapes,
                       info.sustained_cut ? ", and the sustained run was cut short" : "");
  }
  out += fmt::format("Tried {} shapes => the best outcomes were:\n", b.shapes());
  if (b.shapes() == 0) {
    // No best shape to name: means of nothing would print 0.0 TFLOPS "@ 0x0x0", a shape never
    // run. The notes below say why.
    out += "none: no shape was measured\n";
  } else {
    append_best(out, b);
    out +=
        fmt::format("\nAcross {} shapes in range: {} in this run:\n", b.shapes(), info.range_info);
    out += fmt::format("arithmetic mean: {:.1f} TFLOPS\n", b.arithmetic_mean());
    out += fmt::format("geometric mean:  {:.1f} TFLOPS\n", b.geometric_mean());
  }

  if (info.tuned != nullptr && info.tuned->shapes() > 0) {
    const SweepSummary& t = *info.tuned;
    out += fmt::format("\nWith the {} solution per shape (Default above):\n", info.tuned_label);
    append_best(out, t);
    out += fmt::format("arithmetic mean: {:.1f} TFLOPS\n", t.arithmetic_mean());
    out += fmt::format("geometric mean:  {:.1f} TFLOPS\n", t.geometric_mean());
    out += fmt::format("best mean {} over Default's best mean; arithmetic mean {}\n",
                       percent_change(t.best().mean, b.best().mean),
                       percent_change(t.arithmetic_mean(), b.arithmetic_mean()));
  }
  if (info.efficiency && info.efficiency->peak_tflops > 0 && b.shapes() > 0) {
    const double peak = info.efficiency->peak_tflops;
    out += fmt::format("\nEfficiency against the {:.1f} TFLOPS dense {} peak ({}):\n", peak,
                       info.dtype, info.efficiency->source);
    out += fmt::format("best mean: {:.1f}% (Default)", 100.0 * b.best().mean / peak);
    if (info.tuned != nullptr && info.tuned->shapes() > 0) {
      out +=
          fmt::format(", {:.1f}% ({})", 100.0 * info.tuned->best().mean / peak, info.tuned_label);
    }
    out += fmt::format("; arithmetic mean: {:.1f}%\n", 100.0 * b.arithmetic_mean() / peak);
  }
  if (info.sustained) {
    const auto& s = *info.sustained;
    out += fmt::format(
        "\nSustained over {:.1f} s at {} ({}): {:.1f} TFLOPS, {:.1f}% of its burst {:.1f} TFLOPS; "
        "slowest 1 s window {:.1f} TFLOPS\n",
        s.seconds, s.shape.text(), s.solution, s.tflops,
        s.burst_tflops > 0 ? 100.0 * s.tflops / s.burst_tflops : 0.0, s.burst_tflops,
        s.slowest_window_tflops);
  }
  if (info.warmup && !info.warmup->skipped) {
    out += fmt::format("\nWarm-up: {} after {:.1f} s\n",
                       info.warmup->settled ? "timings settled" : "stopped unsettled",
                       info.warmup->seconds);
  }
  if (!info.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : info.notes) out += fmt::format("- {}\n", n);
  }
  if (!info.monitor.empty()) out += "\n" + info.monitor;
  out += "\nLegend: TFLOPS = 10**12 FLOPS\n";
  out += fmt::format("Elapsed time: {}\n", format_elapsed(info.elapsed_seconds));
  return out;
}

}  // namespace gemmtune::mamf
