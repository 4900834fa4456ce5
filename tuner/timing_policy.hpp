// TimingPolicy: how long and how often the profiler runs a candidate in each phase — the knobs of
// PyTorch TunableOp (max tuning duration/iterations, max warmup duration/iterations, rotating
// buffer size) plus cache flushing and the screening phase gemmtune adds.
//
// Every phase honours both of its caps, whichever is reached first, and runs at least one
// iteration. A cap of 0 means "no cap of that kind"; a phase with both caps at 0 runs exactly one
// iteration (measurement, screening) or is skipped (warmup).
#pragma once

#include <algorithm>
#include <optional>
#include <string_view>

namespace gemmtune {

// How a phase's iterations reach the device. The samples are always one pair of device events
// (or steady-clock readings on the CPU) per iteration; what differs is whether the host's time to
// issue an iteration can end up inside them.
enum class TimingMode {
  // Each chunk of iterations is queued behind a held stream and released at once, so the device
  // runs them back to back and a sample is device time alone. A 10 µs GEMM costs cuBLAS 7-14 µs
  // of host time per call on an H200's host (bench/results/2026-11-21-h200-skinny-n32-n64-
  // probes.md §7): issued one by one, the device waits for the host between the begin event and
  // the kernel, and that wait, which varies from run to run, picked a winner 6% slower on the
  // device (-run24.md, #4).
  Queued,
  // Each iteration runs as soon as it is issued: a small GEMM's samples include the host's launch
  // time where it exceeds the device's (what an eager, uncaptured program pays per call).
  Immediate,
};

std::string_view to_string(TimingMode mode);
// "queued" or "immediate"; nullopt otherwise.
std::optional<TimingMode> parse_timing_mode(std::string_view text);

struct TimingPolicy {
  // TunableOp's defaults (PYTORCH_TUNABLEOP_MAX_TUNING_DURATION_MS=30, ..._ITERATIONS=100): enough
  // samples for a stable median of a microsecond GEMM, a bounded 30 ms for a slow one.
  double max_tuning_duration_ms = 30;
  int max_tuning_iterations = 100;
  // Warmup runs right before a candidate's screening. TunableOp's default is no warmup; ours is one
  // iteration, because a library's first call (OpenBLAS starting its threads, cuBLASLt loading a
  // kernel module, a solution's scratch being first touched) is 5-50x slower than the next ones
  // and would otherwise dominate the few screening samples: measured on OpenBLAS dgemm 256^3,
  // 8 ms cold vs 0.6 ms warm, which screened out the fastest candidate. Screening and the
  // numerical check then run before the measurement, which therefore starts warm.
  double max_warmup_duration_ms = 0;
  int max_warmup_iterations = 1;
  // Rotating operand sets: nullopt = a footprint of at least twice the last-level cache; 0 = off
  // (one set, caches stay warm, like TunableOp with PYTORCH_TUNABLEOP_ROTATING_BUFFER_SIZE=0).
  std::optional<double> rotating_buffer_mb;
  // Flush the last-level cache before every iteration (outside the timed region). Also done
  // automatically where rotation was asked for but cannot cover its target in memory.
  bool flush_cache = false;
  // Screening: a few cheap iterations per candidate; candidates whose screening median exceeds
  // screening_keep_factor × the best screening median so far are dropped. 0 iterations = off;
  // a keep factor of 0 = no keep bar (max_finalists still applies).
  // Ten iterations within 3 ms: a 10 µs decode GEMM gets ten samples (with three, the median of
  // 400 candidates' screenings picked lucky ones and missed the best by 2-4% on an H200), while a
  // 3 ms GEMM still costs one iteration per candidate.
  int screening_iterations = 10;
  double screening_duration_ms = 3;
  double screening_keep_factor = 1.5;
  // How many of the fastest correct candidates of screening go on to the full measurement; the
  // rest are screened out. cuBLASLt offers hundreds of candidates for a skinny problem: measuring
  // every one under the full caps would cost seconds per problem, while the true winner is, up
  // to screening noise, among the fastest few. 0 = no limit.
  int max_finalists = 8;
  // Settle: right before the finalists' measurement, Default runs back to back for this long,
  // untimed, so that they are measured at the clocks and power of sustained work rather than
  // fresh from the idle numerical checks. On an H200 a compute-bound GEMM measured right after
  // the checks ran up to 11% faster than under sustained load, and not every kernel equally:
  // which of two configurations was faster flipped (bench/results/2026-11-21-h200-run4.md,
  // -power-drift.md). 0 = off.
  double settle_duration_ms = 100;
  // Confirmation: after the measurement, this many of the fastest challengers and Default are
  // measured again in fresh interleaved rounds under half the measurement's caps, and the winner
  // is chosen on those samples alone, nearly free of the bias of having been picked as the
  // fastest of several (see Tuner). Three, not two: on H100s the best of the heuristic's top 8 in
  // the LLM benchmark was sometimes the third fastest of the measurement, never confirmed, while
  // the two ahead of it fell behind Default in the confirmation (#98 of run 74, 1.2% ahead of
  // Default in the benchmark). A third costs a 0.3 ms GEMM about 15 ms.
  // 0 = off: the measurement's samples decide.
  int confirmation_contenders = 3;
  // The trial's turns: a lead under the minimum gain (TunerOptions::trial_min_gain) is measured
  // again with Default in interleaved turns of this many milliseconds of back-to-back runs each,
  // eight turns apiece. The confirmation's turns last 1-4 ms, and a cuBLASLt configuration that was
  // 0.5-0.8% ahead of Default in turns of about 3.5 ms on an H100 was 2-10% behind it in turns of
  // 8 ms in seven processes of eight (bench/results/2026-11-26-h100-replication.md). 0 = no trial.
  double trial_turn_ms = 8;
  // Idle time after every turn of the finalists' phases (measurement, confirmation, trial), with no
  // settle before them: the finalists measured on a device that keeps its power headroom and its
  // clocks near the maximum, as in a program that leaves it idle between GEMMs (a server between
  // requests), rather than one busy for seconds at its power limit (training steps back to back).
  // Which cuBLASLt configuration is the faster differs between the two: on an H100, ones that were
  // 0.5-3.7% faster than Default at the power limit were 0.4-14% slower with 20 ms of idle after
  // every 8 ms turn (bench/results/2026-11-28-h100-headroom.md). 0 = none: the finalists run back
  // to back, after the settle.
  double idle_between_turns_ms = 0;
  // The burst check: where Default takes less than this (ms per iteration), a challenger about to
  // replace it is timed again beside it in bursts of back-to-back runs with one pair of events
  // around each, and in replays of runs captured into a graph where the backend can capture
  // (Backend::capture_runs), and does not replace it if it is slower either way beyond the noise.
  // An event recorded between two kernels keeps the second from starting early (programmatic
  // dependent launch), so the per-iteration samples cannot see how a kernel runs right behind
  // another, which is how a program's stream or CUDA graph runs it: on an H200 a skinny kernel
  // 13% faster than Default per iteration took 19% longer back to back and 22% longer from a
  // graph (bench/results/2026-11-28-h200-run83-details.md, #34). 0 = no burst check; none with
  // flush_cache either (a burst has no flushes between its runs).
  double burst_check_below_ms = 0.2;
  // Device time alone by default (see TimingMode). Backends with one way to time (the CPU's
  // steady clock) ignore it.
  TimingMode mode = TimingMode::Queued;
};

// The two caps of one phase; 0 = no cap of that kind.
struct PhaseCaps {
  int max_iterations = 0;
  double max_duration_ms = 0;

  bool empty() const { return max_iterations <= 0 && max_duration_ms <= 0; }
};

inline PhaseCaps warmup_caps(const TimingPolicy& p) {
  return {p.max_warmup_iterations, p.max_warmup_duration_ms};
}
inline PhaseCaps screening_caps(const TimingPolicy& p) {
  return {p.screening_iterations, p.screening_duration_ms};
}
inline PhaseCaps measurement_caps(const TimingPolicy& p) {
  return {p.max_tuning_iterations, p.max_tuning_duration_ms};
}
// Half the measurement's caps (at least one iteration where iterations are capped): the
// contenders already had a full measurement, and the confirmation only decides among two or three.
// Its duration cap is raised to min_duration_ms where that is longer, though never beyond the
// measurement's own, so that a long GEMM still gets a sample in every round.
inline PhaseCaps confirmation_caps(const TimingPolicy& p, double min_duration_ms = 0) {
  const PhaseCaps m = measurement_caps(p);
  PhaseCaps c{m.max_iterations > 0 ? (m.max_iterations + 1) / 2 : 0, m.max_duration_ms / 2};
  if (c.max_duration_ms > 0 && min_duration_ms > c.max_duration_ms) {
    c.max_duration_ms = std::min(min_duration_ms, m.max_duration_ms);
  }
  return c;
}
// When a phase may end before its caps: screening's cuts (screening_stops), for candidates too slow
// to be worth the rest of their samples. 0 = no such stop.
struct EarlyStop {
  double first_sample_above_ms = 0;  // after the first sample, where it exceeds this
  int median_samples = 0;            // after this many samples, where their median exceeds
  double median_above_ms = 0;        // this
};
// Screening's cuts, from the keep bar that Default's screening median sets (the bar a candidate
// must finally clear, keep_factor × the best correct median, is at most Default's):
// - after the first sample (right after the warmup), where it exceeds kScreeningCutFactor × that
//   bar: such a candidate would be screened out unless its other samples came out
//   kScreeningCutFactor times faster than its first. In the heuristic space of a decode GEMM most
//   of ~500 candidates are several times slower than Default, and their ten screening iterations
//   were over half of the tuning time (bench/results/2026-11-25-h100-run34-details.md);
// - after kScreeningMedianSamples samples, where their median exceeds the bar itself. On the LLM
//   benchmark's 64 decode GEMMs (an H100), candidates 1.5-3x slower than Default ran all ten
//   screening iterations and took 40% of the screening's device time, while no finalist's
//   screening median was over 1.084x Default's (bench/results/2026-11-28-h100-decode-screening.md).
// None where screening or its keep bar is off, or Default's median is not known.
inline constexpr double kScreeningCutFactor = 2.0;
inline constexpr int kScreeningMedianSamples = 3;
inline EarlyStop screening_stops(const TimingPolicy& p, double default_screening_median_ms) {
  if (p.screening_iterations <= 0 || p.screening_keep_factor <= 0 ||
      !(default_screening_median_ms > 0)) {
    return {};
  }
  const double bar = p.screening_keep_factor * default_screening_median_ms;
  return {kScreeningCutFactor * bar, kScreeningMedianSamples, bar};
}
// The trial's caps: its eight turns of trial_turn_ms, each at least one iteration.
inline constexpr int kTrialTurns = 8;
// A trial runs only where Default fits this many iterations in a turn (GEMMs up to 0.4 ms at the
// default 8 ms turns). On H100s the longer GEMMs' small leads, once past a trial, gained 0.2-0.7%,
// and one of them, a cuBLASLt configuration whose speed depends on the device's power state, came
// out 9% behind Default a second later: on GEMMs that run for most of a millisecond such states
// take over within seconds of sustained load, longer than a trial can run
// (bench/results/2026-11-27-h100-trial.md).
inline constexpr int kTrialIterationsPerTurn = 20;
inline bool trial_fits(const TimingPolicy& p, double default_median_ms) {
  return default_median_ms * kTrialIterationsPerTurn <= p.trial_turn_ms;
}
inline PhaseCaps trial_caps(const TimingPolicy& p) {
  return {0, kTrialTurns * p.trial_turn_ms};
}
// A trial's lead of this many times trial_min_gain (1% at the default 0.5%), beyond the noise,
// replaces Default even with turns behind; a smaller one must be ahead in every turn. In the LLM
// benchmark's runs 77-91 (H100 and H200), 25 trials turned down for a turn behind with a lead of
// 1% or more came out 0.995-1.049x of Default when the benchmark measured them again (mean
// 1.015x), as good as the trials' 161 winners (0.991-1.100x, mean 1.022x); the 15 with a smaller
// lead came out 0.966-1.023x, among them the lowest (bench/llm/tools/trials.py).
inline constexpr double kTrialAnyTurnsGainTimes = 2.0;
// The burst check's bursts: kBurstIterations back-to-back runs between one pair of events (and as
// many captured for each graph replay), in kBurstRounds interleaved rounds of one burst and one
// replay per solution.
inline constexpr int kBurstIterations = 20;
inline constexpr int kBurstRounds = 8;
inline bool burst_check_applies(const TimingPolicy& p, double default_median_ms) {
  return p.burst_check_below_ms > 0 && !p.flush_cache && default_median_ms > 0 &&
         default_median_ms < p.burst_check_below_ms;
}
inline PhaseCaps settle_caps(const TimingPolicy& p) {
  return {0, p.settle_duration_ms};
}
inline bool warmup_enabled(const TimingPolicy& p) {
  return !warmup_caps(p).empty();
}
inline bool settle_enabled(const TimingPolicy& p) {
  return p.settle_duration_ms > 0;
}
inline bool screening_enabled(const TimingPolicy& p) {
  return p.screening_iterations > 0;
}

}  // namespace gemmtune
