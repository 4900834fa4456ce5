#include "cli/tuning_options.hpp"

#include <fmt/format.h>

#include "cli/exit_codes.hpp"
#include "cli/number_checks.hpp"
#include "cli/value_checks.hpp"
#include "tuner/numerical_check.hpp"

namespace gemmtune::cli {

namespace {
constexpr double kMaxWorkspaceMb = 1024.0 * 1024.0;  // 1 TiB: more than any device holds
}  // namespace

CLI::Validator workspace_mb_value() {
  return finite_range(0, kMaxWorkspaceMb);
}

std::size_t workspace_bytes(double workspace_mb) {
  return static_cast<std::size_t>(workspace_mb * 1024.0 * 1024.0);
}

void add_tuning_options(CLI::App& cmd, TunerOptions& tuner, TuningOptionTexts& texts) {
  TimingPolicy& timing = tuner.timing;
  cmd.add_option("--max-tuning-duration-ms", timing.max_tuning_duration_ms,
                 "Tuning: measurement time cap per candidate (ms; 0 = none); the confirmation gets "
                 "half, or up to all of it for a GEMM too long for a sample per round")
      ->envname("GEMMTUNE_MAX_TUNING_DURATION_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option(
         "--max-tuning-iterations", timing.max_tuning_iterations,
         "Tuning: measurement iteration cap per candidate (0 = none); the confirmation gets "
         "half")
      ->envname("GEMMTUNE_MAX_TUNING_ITERATIONS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--max-warmup-duration-ms", timing.max_warmup_duration_ms,
                 "Tuning: warm-up time cap per candidate (ms; 0 = none)")
      ->envname("GEMMTUNE_MAX_WARMUP_DURATION_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--max-warmup-iterations", timing.max_warmup_iterations,
                 "Tuning: warm-up iteration cap per candidate (0 = none)")
      ->envname("GEMMTUNE_MAX_WARMUP_ITERATIONS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--rotating-buffer-mb", texts.rotating_buffer_mb,
                 "Footprint of rotating operand copies (MiB; 0 = off; default 2x last-level cache)")
      ->envname("GEMMTUNE_ROTATING_BUFFER_MB")
      ->check(finite_non_negative());
  cmd.add_option("--max-finalists", timing.max_finalists,
                 "Tuning: how many of the fastest correct candidates are fully measured (0 = all)")
      ->envname("GEMMTUNE_MAX_FINALISTS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--settle-ms", timing.settle_duration_ms,
                 "Tuning: untimed back-to-back Default runs before the finalists' measurement, so "
                 "that they are measured at sustained clocks (ms; 0 = off)")
      ->envname("GEMMTUNE_SETTLE_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--confirmation-contenders", timing.confirmation_contenders,
                 "Tuning: how many of the fastest finalists are measured again beside Default, in "
                 "fresh rounds that alone decide the winner (0 = off: the measurement decides)")
      ->envname("GEMMTUNE_CONFIRMATION_CONTENDERS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_flag("--flush-cache", timing.flush_cache,
               "Flush the last-level cache before every timed iteration")
      ->envname("GEMMTUNE_FLUSH_CACHE");
  cmd.add_option("--timing-mode", texts.timing_mode,
                 "How iterations reach the device: queued (each chunk runs back to back once "
                 "issued: device time alone) or immediate (each as issued: a small GEMM's samples "
                 "include the host's launch time)")
      ->check(CLI::IsMember({"queued", "immediate"}))
      ->envname("GEMMTUNE_TIMING_MODE")
      ->capture_default_str();
  cmd.add_option("--min-gain-percent", texts.min_gain_percent,
                 "Tuning: how much faster than Default (median, %) a candidate must be to replace "
                 "it on the confirmation alone, beyond the measured noise (0 = any gain beyond the "
                 "noise); a smaller lead gets a trial (--trial-min-gain-percent)")
      ->envname("GEMMTUNE_MIN_GAIN_PERCENT")
      ->check(finite_range(0.0, 100.0))
      ->capture_default_str();
  cmd.add_option("--trial-min-gain-percent", texts.trial_min_gain_percent,
                 "Tuning: a lead over Default under the minimum gain (or within the noise) is "
                 "measured again in long turns, and replaces Default if it keeps at least this "
                 "much (median, %) there, beyond the noise, in every turn (0 = no trial)")
      ->envname("GEMMTUNE_TRIAL_MIN_GAIN_PERCENT")
      ->check(finite_range(0.0, 100.0))
      ->capture_default_str();
  cmd.add_option("--trial-turn-ms", timing.trial_turn_ms,
                 "Tuning: how long each of the trial's 8 turns per solution runs back to back (ms; "
                 "0 = no trial)")
      ->envname("GEMMTUNE_TRIAL_TURN_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--idle-between-turns-ms", timing.idle_between_turns_ms,
                 "Tuning: idle time after every turn of the finalists' measurement, confirmation "
                 "and trial, with no settle, so that they are measured with the device's clocks "
                 "up, as in a program that leaves it idle between GEMMs (ms; 0 = back to back, "
                 "near the power limit, as in training steps)")
      ->envname("GEMMTUNE_IDLE_BETWEEN_TURNS_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--burst-check-below-ms", timing.burst_check_below_ms,
                 "Tuning: where Default takes less than this (ms), the challenger about to replace "
                 "it is timed again beside it in bursts of back-to-back iterations, as a stream or "
                 "a CUDA graph runs them, and must not be slower there (0 = off)")
      ->envname("GEMMTUNE_BURST_CHECK_BELOW_MS")
      ->check(finite_non_negative())
      ->capture_default_str();
  cmd.add_option("--numerical-check", texts.numerical_check,
                 "Tuning: check candidates against Default: on, off, or ATOL_RTOL")
      ->check(numerical_check_value())
      ->envname("GEMMTUNE_NUMERICAL_CHECK")
      ->capture_default_str();
  cmd.add_option("--search", texts.search, "Tuning: heuristic or exhaustive")
      ->check(CLI::IsMember({"heuristic", "exhaustive"}))
      ->envname("GEMMTUNE_SEARCH")
      ->capture_default_str();
  cmd.add_option("--providers", tuner.search.providers,
                 "Search only these providers' candidates, e.g. cublas,cublaslt for results "
                 "PyTorch 2.14 or later can run (Default always runs)")
      ->delimiter(',')
      ->allow_extra_args(false)  // one list: an untuned file after it is not swallowed
      ->check(provider_name())
      ->envname("GEMMTUNE_PROVIDERS");
  cmd.add_option("--workspace-mb", texts.workspace_mb,
                 "Largest workspace a candidate may use (MiB, at most 1048576 = 1 TiB)")
      ->envname("GEMMTUNE_WORKSPACE_MB")
      ->check(workspace_mb_value())
      ->capture_default_str();
  // A negative seed would wrap around to a huge unsigned one without a word.
  cmd.add_option("--seed", tuner.seed, "Seed of the random operands")
      ->envname("GEMMTUNE_SEED")
      ->check(finite_non_negative())
      ->capture_default_str();
}

void apply_tuning_options(const TuningOptionTexts& texts, TunerOptions& tuner) {
  std::erase(tuner.search.providers, std::string());  // `--providers ""` is every provider
  tuner.check = parse_numerical_check(texts.numerical_check);
  tuner.search.space =
      texts.search == "exhaustive" ? SearchSpace::Exhaustive : SearchSpace::Heuristic;
  tuner.search.max_workspace_bytes = workspace_bytes(texts.workspace_mb);
  if (texts.rotating_buffer_mb >= 0) tuner.timing.rotating_buffer_mb = texts.rotating_buffer_mb;
  tuner.min_gain = texts.min_gain_percent / 100.0;
  tuner.trial_min_gain = texts.trial_min_gain_percent / 100.0;
  if (const auto mode = parse_timing_mode(texts.timing_mode)) {
    tuner.timing.mode = *mode;
  } else {  // refused by the option's check already; a command-line value either way
    throw ExitWith(
        ExitCode::Usage,
        fmt::format("--timing-mode: '{}' is neither queued nor immediate", texts.timing_mode));
  }
}

}  // namespace gemmtune::cli
