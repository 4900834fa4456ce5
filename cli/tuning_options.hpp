// The tuning knobs on the command line of the subcommands that tune problems (gemmtune tune,
// gemmtune bench): PyTorch TunableOp's timing caps, rotation, screening finalists, timing mode,
// the minimum gain over Default, numerical check, search space, providers, workspace and seed,
// each with the option name and GEMMTUNE_* variable `gemmtune tune` gives it, so that a knob
// means the same everywhere (docs/options.md).
//
// Contract: add_tuning_options() registers the options, writing straight into `tuner` where the
// types agree and into `texts` where a value must be parsed; apply_tuning_options() then
// completes `tuner` from `texts`. Every value is checked as its option is parsed (a usage error
// naming the option; cli/value_checks.hpp), so that apply_tuning_options() meets none it cannot
// use.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "tuner/tuner.hpp"

namespace gemmtune::cli {

struct TuningOptionTexts {
  std::string numerical_check = "on";
  std::string search = "heuristic";
  double rotating_buffer_mb = -1;  // < 0: the default (2x last-level cache)
  double workspace_mb = 32;
  std::string timing_mode = "queued";
  double min_gain_percent = 1.5;        // TunerOptions::min_gain, in percent
  double trial_min_gain_percent = 0.5;  // TunerOptions::trial_min_gain, in percent
};

void add_tuning_options(CLI::App& cmd, TunerOptions& tuner, TuningOptionTexts& texts);

// --workspace-mb, wherever it is an option: its check (at most 1 TiB, so that the bytes stay in
// range) and the bytes a checked value gives.
CLI::Validator workspace_mb_value();
std::size_t workspace_bytes(double workspace_mb);
void apply_tuning_options(const TuningOptionTexts& texts, TunerOptions& tuner);

}  // namespace gemmtune::cli
