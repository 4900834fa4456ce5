#include "drivers/monitor/monitor_summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tuner/quoted_string.hpp"

namespace gemmtune::monitor {
namespace {

constexpr std::uint64_t kGpuIdle = 0x1;

// Min, max and mean of the values present.
template <typename T>
struct Range {
  std::optional<T> min, max;
  double sum = 0;
  int count = 0;

  void add(const std::optional<T>& v) {
    if (!v) return;
    min = min ? std::min(*min, *v) : *v;
    max = max ? std::max(*max, *v) : *v;
    sum += static_cast<double>(*v);
    ++count;
  }
  std::optional<double> mean() const {
    return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
  }
};

double gib(std::uint64_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

std::string percent_of(int part, int whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100.0 * part / whole) : std::string("-");
}

}  // namespace

MonitorSummary summarize(const std::vector<MonitorSample>& samples, const DeviceLimits& limits,
                         const SummaryOptions& options) {
  MonitorSummary s;
  s.device = limits.device;
  s.power_limit_w = limits.power_limit_w;
  s.sm_clock_device_max_mhz = limits.max_sm_clock_mhz;
  s.drop_fraction = options.drop_fraction;
  s.samples = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  s.duration_s = samples.back().t_s - samples.front().t_s;

  s.measuring_samples = static_cast<int>(
      std::count_if(samples.begin(), samples.end(), [](const auto& x) { return x.measuring; }));
  s.scope_is_measurements = s.measuring_samples > 0;

  Range<std::uint64_t> memory_used;
  Range<double> power;
  Range<unsigned> sm_clock, mem_clock, gpu_util, mem_util;
  Range<int> temperature;
  std::vector<const MonitorSample*> busy;
  std::uint64_t seen = 0;
  std::vector<int> per_bit(64, 0);
  for (const auto& x : samples) {
    memory_used.add(x.memory_used_bytes);
    if (x.memory_total_bytes) s.memory_total_bytes = x.memory_total_bytes;
    if (s.scope_is_measurements && !x.measuring) continue;
    ++s.scope_samples;
    power.add(x.power_w);
    temperature.add(x.temperature_c);
    gpu_util.add(x.gpu_util_percent);
    mem_util.add(x.mem_util_percent);
    if (x.reasons) {
      ++s.reason_samples;
      seen |= *x.reasons;
      for (int i = 0; i < 64; ++i) {
        if ((*x.reasons >> i) & 1U) ++per_bit[static_cast<std::size_t>(i)];
      }
    }
    if (x.reasons && (*x.reasons & kGpuIdle) != 0) continue;
    busy.push_back(&x);
    sm_clock.add(x.sm_clock_mhz);
    mem_clock.add(x.mem_clock_mhz);
  }
  s.busy_samples = static_cast<int>(busy.size());
  s.memory_used_max_bytes = memory_used.max;
  s.power_mean_w = power.mean();
  s.power_max_w = power.max;
  s.sm_clock_min_mhz = sm_clock.min;
  s.sm_clock_mean_mhz = sm_clock.mean();
  s.sm_clock_max_mhz = sm_clock.max;
  s.mem_clock_min_mhz = mem_clock.min;
  s.mem_clock_max_mhz = mem_clock.max;
  s.temperature_max_c = temperature.max;
  s.gpu_util_mean_percent = gpu_util.mean();
  s.mem_util_mean_percent = mem_util.mean();

  if (sm_clock.max) {
    const double threshold = options.drop_fraction * *sm_clock.max;
    for (const MonitorSample* x : busy) {
      if (!x->sm_clock_mhz || *x->sm_clock_mhz >= threshold) continue;
      ++s.clock_drop_samples;
      s.clock_drop_lowest_mhz = s.clock_drop_lowest_mhz
                                    ? std::min(*s.clock_drop_lowest_mhz, *x->sm_clock_mhz)
                                    : *x->sm_clock_mhz;
    }
  }
  for (int i = 0; i < 64; ++i) {
    if (per_bit[static_cast<std::size_t>(i)] == 0) continue;
    s.reasons.push_back(
        {reason_of_bit(std::uint64_t{1} << i), per_bit[static_cast<std::size_t>(i)]});
  }
  s.throttled = slowdown_bits(seen) != 0 || s.clock_drop_samples > 0;
  return s;
}

std::string format_monitor_summary(const MonitorSummary& s) {
  const std::string scope = s.scope_is_measurements ? "during measurements" : "during the run";
  std::string out = fmt::format("GPU monitor: {}, every {:.0f} ms: ", s.device, s.interval_ms);
  if (s.samples == 0) {
    out += fmt::format("no samples ({} reading(s) failed)\n", s.failed_samples);
    return out + "  throttled: unknown (nothing was read)\n";
  }
  out += fmt::format("{} samples over {:.1f} s", s.samples, s.duration_s);
  out +=
      s.scope_is_measurements
          ? fmt::format(", {} during measurements (figures below: those; memory: the whole run)\n",
                        s.measuring_samples)
          : std::string(" (no measurement windows were marked: figures over the whole run)\n");
  if (s.memory_used_max_bytes) {
    out += fmt::format("  memory used: max {:.2f} GiB", gib(*s.memory_used_max_bytes));
    if (s.memory_total_bytes) out += fmt::format(" of {:.2f} GiB", gib(*s.memory_total_bytes));
    out += " (the whole device, every process)\n";
  }
  if (s.power_mean_w) {
    out += fmt::format("  power: mean {:.1f} W, max {:.1f} W", *s.power_mean_w, *s.power_max_w);
    if (s.power_limit_w) out += fmt::format(" (limit {:.0f} W)", *s.power_limit_w);
    out += "\n";
  }
  if (s.sm_clock_mean_mhz) {
    out += fmt::format("  SM clock: mean {:.0f} MHz, min {} MHz, max {} MHz", *s.sm_clock_mean_mhz,
                       *s.sm_clock_min_mhz, *s.sm_clock_max_mhz);
    if (s.sm_clock_device_max_mhz) {
      out += fmt::format(" (device max {} MHz)", *s.sm_clock_device_max_mhz);
    }
    if (s.mem_clock_max_mhz) {
      out +=
          *s.mem_clock_min_mhz == *s.mem_clock_max_mhz
              ? fmt::format("; memory clock {} MHz", *s.mem_clock_max_mhz)
              : fmt::format("; memory clock {}-{} MHz", *s.mem_clock_min_mhz, *s.mem_clock_max_mhz);
    }
    out += "\n";
  }
  std::vector<std::string> state;
  if (s.temperature_max_c)
    state.push_back(fmt::format("temperature max {} °C", *s.temperature_max_c));
  if (s.gpu_util_mean_percent) {
    state.push_back(fmt::format("utilisation mean: GPU {:.0f}%, memory {:.0f}%",
                                *s.gpu_util_mean_percent, *s.mem_util_mean_percent));
  }
  if (!state.empty()) out += fmt::format("  {}\n", fmt::join(state, "; "));
  if (s.reason_samples > 0) {
    if (s.reasons.empty()) {
      out += fmt::format("  clock event reasons: none in {} samples\n", s.reason_samples);
    } else {
      std::vector<std::string> items;
      for (const auto& r : s.reasons) {
        items.push_back(fmt::format("{} ({}{}) in {} of {} ({})", r.reason.name, r.reason.meaning,
                                    r.reason.kind == ReasonKind::Benign ? ", benign" : "",
                                    r.samples, s.reason_samples,
                                    percent_of(r.samples, s.reason_samples)));
      }
      out += fmt::format("  clock event reasons: {}\n", fmt::join(items, "; "));
    }
  }
  if (s.sm_clock_max_mhz) {
    out += s.clock_drop_samples == 0
               ? fmt::format("  clock drops: none (no busy sample below {:.0f}% of {} MHz)\n",
                             100 * s.drop_fraction, *s.sm_clock_max_mhz)
               : fmt::format(
                     "  clock drops: {} of {} busy samples below {:.0f}% of {} MHz, "
                     "lowest {} MHz\n",
                     s.clock_drop_samples, s.busy_samples, 100 * s.drop_fraction,
                     *s.sm_clock_max_mhz, *s.clock_drop_lowest_mhz);
  }
  std::vector<std::string> why;
  for (const auto& r : s.reasons) {
    if (r.reason.kind == ReasonKind::Slowdown) why.push_back(r.reason.name);
  }
  if (s.clock_drop_samples > 0) why.push_back("clock drops");
  out += s.throttled ? fmt::format("  throttled {}: yes ({})\n", scope, fmt::join(why, ", "))
                     : fmt::format("  throttled {}: no\n", scope);
  return out;
}

std::vector<MonitorField> monitor_fields(const MonitorSummary& s) {
  std::vector<MonitorField> f;
  const auto text = [&](const char* key, std::string value) {
    f.push_back({key, std::move(value), false});
  };
  const auto integer = [&](const char* key, auto value) {
    f.push_back({key, fmt::format("{}", value), true});
  };
  const auto real = [&](const char* key, double value) {
    f.push_back({key, fmt::format("{:.1f}", value), true});
  };
  text("device", s.device);
  real("interval_ms", s.interval_ms);
  integer("samples", s.samples);
  integer("failed_samples", s.failed_samples);
  integer("measuring_samples", s.measuring_samples);
  text("scope", s.scope_is_measurements ? "measurements" : "run");
  integer("scope_samples", s.scope_samples);
  integer("busy_samples", s.busy_samples);
  f.push_back({"duration_s", fmt::format("{:.3f}", s.duration_s), true});
  if (s.memory_used_max_bytes) integer("memory_used_max_bytes", *s.memory_used_max_bytes);
  if (s.memory_total_bytes) integer("memory_total_bytes", *s.memory_total_bytes);
  if (s.power_mean_w) real("power_mean_w", *s.power_mean_w);
  if (s.power_max_w) real("power_max_w", *s.power_max_w);
  if (s.power_limit_w) real("power_limit_w", *s.power_limit_w);
  if (s.sm_clock_min_mhz) integer("sm_clock_min_mhz", *s.sm_clock_min_mhz);
  if (s.sm_clock_mean_mhz) real("sm_clock_mean_mhz", *s.sm_clock_mean_mhz);
  if (s.sm_clock_max_mhz) integer("sm_clock_max_mhz", *s.sm_clock_max_mhz);
  if (s.sm_clock_device_max_mhz) integer("sm_clock_device_max_mhz", *s.sm_clock_device_max_mhz);
  if (s.mem_clock_min_mhz) integer("mem_clock_min_mhz", *s.mem_clock_min_mhz);
  if (s.mem_clock_max_mhz) integer("mem_clock_max_mhz", *s.mem_clock_max_mhz);
  if (s.temperature_max_c) integer("temperature_max_c", *s.temperature_max_c);
  if (s.gpu_util_mean_percent) real("gpu_util_mean_percent", *s.gpu_util_mean_percent);
  if (s.mem_util_mean_percent) real("mem_util_mean_percent", *s.mem_util_mean_percent);
  f.push_back({"clock_drop_fraction", fmt::format("{}", s.drop_fraction), true});
  integer("clock_drop_samples", s.clock_drop_samples);
  if (s.clock_drop_lowest_mhz) integer("clock_drop_lowest_mhz", *s.clock_drop_lowest_mhz);
  integer("reason_samples", s.reason_samples);
  std::vector<std::string> reasons, slowdowns;
  for (const auto& r : s.reasons) {
    reasons.push_back(fmt::format("{}:{}", r.reason.name, r.samples));
    if (r.reason.kind == ReasonKind::Slowdown) slowdowns.push_back(r.reason.name);
  }
  text("reasons", fmt::format("{}", fmt::join(reasons, ",")));
  text("slowdown_reasons", fmt::format("{}", fmt::join(slowdowns, ",")));
  integer("throttled", s.throttled ? 1 : 0);
  return f;
}

std::string format_monitor_fields(const MonitorSummary& summary) {
  std::string out;
  for (const auto& f : monitor_fields(summary))
    out += fmt::format("monitor.{}={}\n", f.key, f.value);
  return out;
}

std::string format_monitor_json(const MonitorSummary& summary) {
  std::string out = "{";
  for (const auto& f : monitor_fields(summary)) {
    if (out.size() > 1) out += ',';
    out += quoted_string(f.key) + ':' + (f.numeric ? f.value : quoted_string(f.value));
  }
  return out + "}";
}

}  // namespace gemmtune::monitor
