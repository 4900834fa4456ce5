// gemmtune_step_bench: whole training steps of Llama-style layers with each policy's solutions —
// Default everywhere, cuBLASLt's heuristic #0, the best of its top 8 (what PyTorch 2.14's
// TunableOp picks), gemmtune's winners — and every GEMM's time inside the step beside its time in
// the LLM benchmark's evaluation. See step_replay.hpp for why, bench/README.md for the output.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/llm/baselines.hpp"
#include "bench/llm/device_state.hpp"
#include "bench/llm/shapes.hpp"
#include "bench/llm/step_replay.hpp"
#include "bench/llm/sustained_turns.hpp"
#include "bench/llm/write_atomically.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {
namespace {

struct Options {
  std::vector<std::string> layers{"1B-bf16", "8B-bf16", "8B-fp16"};
  std::string output;
  int device = 0;
  double warmup_s = 5;
  double headroom_gap_ms = 20;
  StepReplayOptions replay;
  SustainedOptions sustained;
};

// One distinct GEMM of a layer: what the tuner and the LLM benchmark's evaluation found.
struct GemmVerdict {
  std::string winner;
  std::string heuristic0;
  std::string top_best;
  std::string sustained;  // the fastest of the above in turns with a lead-in (sustained_turns.hpp)
  Baselines baselines;
  std::vector<Timed> sustained_turns;  // Default, winner, top_best, heuristic0, each once
  double tuning_s = 0;
};

struct LayerResult {
  std::string layer;
  TrainingStep step;
  std::vector<GemmVerdict> gemms;
  std::vector<StepPolicy> policies;
  std::vector<PolicyTimes> at_limit;
  std::vector<PolicyTimes> headroom;  // empty where not taken
  DeviceState limit_state, headroom_state;
};

enum Policy : std::size_t { kDefault, kHeuristic0, kTopBest, kWinner, kSustained };

std::string shorten(const std::string& name) {
  // Gemm_Cublaslt_id_66_tile_20_stages_35_splitk_1_red_0_swizzle_0_custom_1_inner_0_cluster_3
  // → id66 t20 s35 c1 cl3 (the fields that vary in these sets; the full names are in the
  // evaluation's lines).
  unsigned id = 0, tile = 0, stages = 0, custom = 0, cluster = 0, red = 0, swizzle = 0, inner = 0;
  int splitk = 0;
  if (std::sscanf(name.c_str(),
                  "Gemm_Cublaslt_id_%u_tile_%u_stages_%u_splitk_%d_red_%u_swizzle_%u_custom_%u_"
                  "inner_%u_cluster_%u",
                  &id, &tile, &stages, &splitk, &red, &swizzle, &custom, &inner, &cluster) == 9) {
    return fmt::format("id{} t{} s{}{}{}{} c{} cl{}", id, tile, stages,
                       splitk != 1 ? fmt::format(" k{}", splitk) : "",
                       red != 0 ? fmt::format(" r{}", red) : "",
                       swizzle != 0 ? fmt::format(" sw{}", swizzle) : "", custom, cluster);
  }
  return name;
}

double ratio(const Timed& a, const Timed& b) {
  return a.ok() && b.ok() ? a.median_ms / b.median_ms : 0;
}

bool slower_beyond_noise(const Timed& a, const Timed& b) {
  const double r = ratio(a, b);
  return r > 0 && r - 1 > Baselines::noise(a, b);
}

// "1.012 ⚠ (0.4%)": a over b, flagged where a is slower beyond the noise.
std::string compare(const Timed& a, const Timed& b) {
  const double r = ratio(a, b);
  if (r <= 0) return "—";
  return fmt::format("{:.3f}{} ({:.1f}%)", r, slower_beyond_noise(a, b) ? " ⚠" : "",
                     100 * Baselines::noise(a, b));
}

// "8B-bf16" → the layer's training step; throws naming the argument where it is not one.
std::vector<LlmShape> layer_shapes(const std::string& layer) {
  const auto dash = layer.find('-');
  const std::string model = layer.substr(0, dash);
  const std::string dtype_text = dash == std::string::npos ? "" : layer.substr(dash + 1);
  if (dtype_text != "bf16" && dtype_text != "fp16") {
    throw std::invalid_argument(
        fmt::format("--layers {}: expected MODEL-DTYPE with DTYPE bf16 or fp16 (1B-bf16)", layer));
  }
  auto shapes =
      training_step_shapes(model, dtype_text == "bf16" ? DType::BFloat16 : DType::Float16);
  if (shapes.empty()) {
    throw std::invalid_argument(
        fmt::format("--layers {}: unknown model {} (1B, 8B or 70B)", layer, model));
  }
  return shapes;
}

LayerResult run_layer(const std::string& layer, const std::vector<LlmShape>& shapes, Tuner& tuner,
                      Backend& backend, const Registry& registry, const Options& o,
                      monitor::MonitorStart& gpu, const std::function<double()>& monitor_s) {
  LayerResult r;
  r.layer = layer;
  r.step = make_training_step(shapes);
  RemeasureOptions evaluation;  // the LLM benchmark's, without its headroom rounds
  evaluation.headroom_gap_ms = 0;
  for (const LlmShape& shape : r.step.distinct) {
    const TuningReport tuning = tuner.tune(shape.problem);
    if (!tuning.ok()) {
      throw std::runtime_error(fmt::format("{}: tuning failed: {}", shape.label(), tuning.error));
    }
    GemmVerdict v;
    v.winner = tuning.winner;
    v.tuning_s = tuning.elapsed_s;
    v.baselines = remeasure(backend, registry, shape.problem, tuning.winner, evaluation);
    if (!v.baselines.error.empty()) {
      throw std::runtime_error(fmt::format("{}: {}", shape.label(), v.baselines.error));
    }
    v.heuristic0 = v.baselines.heuristic0.ok() ? v.baselines.heuristic0.name
                                               : std::string(kDefaultSolutionName);
    v.top_best =
        v.baselines.top_best.ok() ? v.baselines.top_best.name : std::string(kDefaultSolutionName);
    std::vector<std::string> names;
    for (const std::string& n :
         {std::string(kDefaultSolutionName), v.winner, v.top_best, v.heuristic0}) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    v.sustained_turns = sustained_times(backend, registry, shape.problem, names, o.sustained);
    v.sustained = kDefaultSolutionName;
    double best_ms = v.sustained_turns.front().median_ms;
    for (const Timed& t : v.sustained_turns) {
      if (t.ok() && (best_ms <= 0 || t.median_ms < best_ms)) {
        best_ms = t.median_ms;
        v.sustained = t.name;
      }
    }
    std::fprintf(stderr, "  %-24s winner %s, top-8 best %s, sustained %s, tuned in %.2f s\n",
                 shape.label().c_str(), shorten(v.winner).c_str(), shorten(v.top_best).c_str(),
                 shorten(v.sustained).c_str(), v.tuning_s);
    r.gemms.push_back(std::move(v));
  }
  r.policies = {{"Default", {}},
                {"heuristic #0", {}},
                {"best of the top 8", {}},
                {"gemmtune", {}},
                {"sustained pick", {}}};
  for (const GemmVerdict& v : r.gemms) {
    r.policies[kDefault].names.emplace_back(kDefaultSolutionName);
    r.policies[kHeuristic0].names.push_back(v.heuristic0);
    r.policies[kTopBest].names.push_back(v.top_best);
    r.policies[kWinner].names.push_back(v.winner);
    r.policies[kSustained].names.push_back(v.sustained);
  }
  StepReplayOptions limit = o.replay;
  limit.gap_ms = 0;
  const double limit_from = monitor_s();
  r.at_limit = replay_steps(backend, registry, r.step, r.policies, limit);
  const double limit_to = monitor_s();
  if (o.headroom_gap_ms > 0) {
    StepReplayOptions headroom = o.replay;
    headroom.gap_ms = o.headroom_gap_ms;
    r.headroom = replay_steps(backend, registry, r.step, r.policies, headroom);
  }
  if (gpu.monitor) {
    const auto samples = gpu.monitor->samples();
    r.limit_state = device_state(samples, limit_from, limit_to);
    if (!r.headroom.empty()) r.headroom_state = device_state(samples, limit_to, monitor_s());
  }
  return r;
}

std::string render_layer(const LayerResult& r, double headroom_gap_ms) {
  std::string md = fmt::format("## {} training step ({} GEMMs, {} distinct)\n\n", r.layer,
                               r.step.order.size(), r.step.distinct.size());
  md += fmt::format("- device state at the limit: {}\n", describe(r.limit_state));
  if (!r.headroom.empty()) {
    md += fmt::format("- device state with {} ms of idle after every turn: {}\n", headroom_gap_ms,
                      describe(r.headroom_state));
  }
  md +=
      "\n| policy | step ms at the limit | ×Default | vs gemmtune | step ms with headroom | "
      "×Default | vs gemmtune |\n|---|--:|--:|--:|--:|--:|--:|\n";
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    const auto cells = [&](const std::vector<PolicyTimes>& t) {
      if (t.empty()) return std::string("— | — | —");
      return fmt::format("{:.3f} | {:.3f} | {}", t[p].step.median_ms,
                         ratio(t[kDefault].step, t[p].step), compare(t[p].step, t[kWinner].step));
    };
    md += fmt::format("| {} | {} | {} |\n", r.policies[p].label, cells(r.at_limit),
                      cells(r.headroom));
  }
  md +=
      "\n(×Default: Default's step time over the policy's; vs gemmtune: the policy's over "
      "gemmtune's, ⚠ where gemmtune's is faster beyond the noise in brackets.)\n\n";
  md +=
      "| GEMM | × in step | gemmtune | best of the top 8 | evaluation: gemmtune / top 8 | "
      "in the step at the limit | with headroom | gemmtune ×Default in the step | sustained "
      "pick | sustained: gemmtune ×Default |\n"
      "|---|--:|---|---|--:|--:|--:|--:|---|--:|\n";
  for (std::size_t d = 0; d < r.step.distinct.size(); ++d) {
    const GemmVerdict& v = r.gemms[d];
    const auto count = std::count(r.step.order.begin(), r.step.order.end(), d);
    const auto sustained = [&](const std::string& name) {
      for (const Timed& t : v.sustained_turns) {
        if (t.name == name) return t;
      }
      return Timed{};
    };
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {:.3f} | {} | {} |\n", r.step.distinct[d].label(),
        count, shorten(v.winner), shorten(v.top_best),
        compare(v.baselines.winner, v.baselines.top_best),
        compare(r.at_limit[kWinner].gemms[d], r.at_limit[kTopBest].gemms[d]),
        r.headroom.empty() ? std::string("—")
                           : compare(r.headroom[kWinner].gemms[d], r.headroom[kTopBest].gemms[d]),
        ratio(r.at_limit[kDefault].gemms[d], r.at_limit[kWinner].gemms[d]), shorten(v.sustained),
        v.winner == kDefaultSolutionName
            ? std::string("—")
            : compare(sustained(std::string(kDefaultSolutionName)), sustained(v.winner)));
  }
  md +=
      "\n(gemmtune's time over the best of the top 8's, ⚠ where slower beyond the noise in "
      "brackets: in the LLM benchmark's evaluation of the GEMM alone, then summed over the "
      "GEMM's places in the step. Sustained: Default, gemmtune's winner, the best of the top 8 "
      "and heuristic #0 in turns right after a lead-in of the same solution; the pick is the "
      "fastest there, and gemmtune ×Default is Default's time over the winner's, ⚠ where Default "
      "is slower beyond the noise.)\n\n";
  return md;
}

std::string render_summary(const std::vector<LayerResult>& layers) {
  int gemms = 0, evaluation = 0, limit = 0, headroom = 0, headroom_measured = 0, steps_slower = 0;
  for (const LayerResult& r : layers) {
    for (std::size_t d = 0; d < r.step.distinct.size(); ++d) {
      ++gemms;
      evaluation += slower_beyond_noise(r.gemms[d].baselines.winner, r.gemms[d].baselines.top_best);
      limit += slower_beyond_noise(r.at_limit[kWinner].gemms[d], r.at_limit[kTopBest].gemms[d]);
      if (!r.headroom.empty()) {
        ++headroom_measured;
        headroom +=
            slower_beyond_noise(r.headroom[kWinner].gemms[d], r.headroom[kTopBest].gemms[d]);
      }
    }
    steps_slower += slower_beyond_noise(r.at_limit[kWinner].step, r.at_limit[kTopBest].step);
  }
  return fmt::format(
      "## Summary\n\n"
      "| gemmtune's winner slower than the best of the top 8 beyond noise | GEMMs |\n|---|--:|\n"
      "| in the LLM benchmark's evaluation (each GEMM alone, 8 ms turns) | {} of {} |\n"
      "| inside the training step, at the power limit | {} of {} |\n"
      "| inside the training step, with headroom | {} of {} |\n"
      "| whole steps at the limit (layers) | {} of {} |\n\n",
      evaluation, gemms, limit, gemms, headroom, headroom_measured, steps_slower, layers.size());
}

int run(const Options& o, const std::string& command) {
  std::vector<std::vector<LlmShape>> steps;  // checked before the device is opened
  for (const std::string& layer : o.layers) steps.push_back(layer_shapes(layer));
  BackendSession session = open_backend(BackendKind::Cuda, o.device);
  Backend& backend = *session.backend;
  Tuner tuner(backend, *session.registry, TunerOptions{});  // `gemmtune tune`'s defaults
  monitor::MonitorStart gpu = monitor::start_monitor_for(backend, {.interval_ms = 25});
  if (!gpu.note.empty()) std::fprintf(stderr, "%s\n", gpu.note.c_str());
  const auto monitor_started = std::chrono::steady_clock::now();
  const std::function<double()> monitor_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - monitor_started)
        .count();
  };
  const DeviceProperties& d = backend.properties();
  std::string md = fmt::format(
      "# gemmtune training-step replay\n\n- device: {} ({}, {} SMs)\n- date: {:%Y-%m-%d %H:%M:%S} "
      "UTC\n- command: `{}`\n- per layer: each distinct GEMM tuned with `gemmtune tune`'s default "
      "options, then measured as the LLM benchmark's evaluation measures it (which also picks "
      "the best of cuBLASLt's top 8); then the 15 GEMMs of the layer's training step run in "
      "order on one stream with each policy's solutions, the policies in {} interleaved turns of "
      "1 untimed + {} timed steps, a CUDA event before every GEMM; every position its own "
      "operands (random in [-1, 1]); medians over the timed steps; noise = two standard errors "
      "of the per-turn ratios (or of the pooled medians); then the same with {} ms of idle "
      "after every turn (with headroom)\n\n",
      d.name, d.architecture, d.compute_units,
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())), command,
      o.replay.rounds, o.replay.steps_per_turn, o.headroom_gap_ms);
  if (o.warmup_s > 0) {  // a host and GPU fresh from idle time the first GEMMs slow
    const auto shapes = training_step_shapes("8B", DType::BFloat16);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.warmup_s);
    while (std::chrono::steady_clock::now() < until) tuner.tune(shapes.front().problem);
  }
  std::vector<LayerResult> layers;
  std::string body;
  for (std::size_t i = 0; i < o.layers.size(); ++i) {
    std::fprintf(stderr, "%s\n", o.layers[i].c_str());
    layers.push_back(
        run_layer(o.layers[i], steps[i], tuner, backend, *session.registry, o, gpu, monitor_s));
    body += render_layer(layers.back(), o.headroom_gap_ms);
    const std::string report = md + render_summary(layers) + body;
    if (!o.output.empty()) write_atomically(o.output, report);
  }
  const std::string report = md + render_summary(layers) + body;
  std::fputs(report.c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace gemmtune::bench

int main(int argc, char** argv) {
  using namespace gemmtune::bench;
  Options o;
  CLI::App app{
      "gemmtune training-step replay: each policy's solutions in whole training steps of "
      "Llama-style layers"};
  app.add_option("--layers", o.layers, "Layers to replay, MODEL-DTYPE (1B, 8B, 70B; bf16, fp16)")
      ->delimiter(',');
  app.add_option("--output", o.output, "Also write the markdown report to this file");
  app.add_option("--device", o.device, "CUDA device ordinal");
  app.add_option("--rounds", o.replay.rounds, "Interleaved turns per policy")
      ->check(CLI::PositiveNumber);
  app.add_option("--steps-per-turn", o.replay.steps_per_turn,
                 "Timed steps per turn (after one untimed step)")
      ->check(CLI::PositiveNumber);
  app.add_option("--headroom-gap-ms", o.headroom_gap_ms,
                 "Idle time after every turn of the second replay (0 = no second replay)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--lead-in-ms", o.sustained.lead_in_ms,
                 "The sustained turns' lead-in of the same solution, untimed")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup-s", o.warmup_s, "Seconds of tuning, discarded, before the first layer")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  std::vector<std::string> args(argv, argv + argc);
  args.front() = std::filesystem::path(args.front()).filename().string();
  try {
    return run(o, fmt::format("{}", fmt::join(args, " ")));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune_step_bench: %s\n", e.what());
    return 1;
  }
}
