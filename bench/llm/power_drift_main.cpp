// gemmtune_power_drift: how the speed of a few solutions of one GEMM changes over a stretch of
// back-to-back work that starts from an idle device. It exists to answer one question about the
// tuner's measurement: does the ranking of two solutions measured right after an idle gap (the
// numerical checks leave one) hold once the device has reached its sustained clocks and power?
//
// After --idle-ms of sleep it cycles through the solutions in blocks of --block iterations until
// --seconds have passed, and prints one CSV line per block: milliseconds since the start, the
// solution, the operands' allocation, the block's median in µs. Each solution's own block medians
// then show the drift. With --allocations N the operands are allocated N times (each allocation a
// rotation of its own, as the tuner plans it) and every solution runs a block on each in turn:
// whether a solution's speed depends on where its operands lie in memory.
//
// Where NVML answers, each line also has the block's energy per iteration (the device's energy
// counter read before and after the block, so the few idle milliseconds between blocks are in it),
// the SM clock right after the block and NVML's power reading (a mean over about a second): under
// the power limit a configuration's speed follows its energy per GEMM, and these columns show
// whether one that is ahead on a cool device spends more energy and falls behind once hot.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "drivers/backend_factory.hpp"
#include "drivers/monitor/nvml_source.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/profiler.hpp"
#include "tuner/rotation.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune::bench {
namespace {

struct Options {
  std::string problem;  // "GemmTunableOp_BFloat16_TN,tn_3072_4096_2048_ld_2048_2048_3072"
  std::vector<std::string> solutions;
  int device = 0;
  double idle_ms = 1000;
  double seconds = 3;
  int block = 10;
  int allocations = 1;
  std::string nvml_library = gemmtune::nvml::kDefaultLibrary;
  bool samples = false;  // every iteration's time as well, in order
  double gap_ms = 0;     // idle time after each block
};

// "energy_mj_per_it,sm_clock_mhz,power_w" of one block, empty fields where NVML did not answer.
std::string nvml_columns(const std::optional<monitor::MonitorSample>& before,
                         const std::optional<monitor::MonitorSample>& after, int iterations) {
  std::string energy, clock, power;
  if (before && after && before->energy_mj && after->energy_mj && iterations > 0) {
    energy = fmt::format("{:.3f}",
                         static_cast<double>(*after->energy_mj - *before->energy_mj) / iterations);
  }
  if (after && after->sm_clock_mhz) clock = fmt::format("{}", *after->sm_clock_mhz);
  if (after && after->power_w) power = fmt::format("{:.0f}", *after->power_w);
  return fmt::format("{},{},{}", energy, clock, power);
}

int run(const Options& o) {
  const auto comma = o.problem.find(',');
  if (comma == std::string::npos) {
    throw std::runtime_error(fmt::format("--problem {}: expected OP_SIGNATURE,PARAMS", o.problem));
  }
  const Problem problem = parse_problem(std::string_view(o.problem).substr(0, comma),
                                        std::string_view(o.problem).substr(comma + 1));
  BackendSession session = open_backend(BackendKind::Cuda, o.device);
  Backend& backend = *session.backend;
  const std::string backend_name = backend.properties().backend;

  std::vector<std::unique_ptr<Solution>> solutions;
  std::size_t workspace = 0;
  for (const std::string& name : o.solutions) {
    auto s = session.registry->from_name(backend_name, problem, name);
    if (!s) throw std::runtime_error(fmt::format("--solution {}: no provider knows it", name));
    if (const Support support = s->supports(problem); !support) {
      throw std::runtime_error(fmt::format("--solution {}: {}", name, support.reason));
    }
    workspace = std::max(workspace, s->workspace_bytes(problem));
    solutions.push_back(std::move(s));
  }
  // The operands as the tuner plans them by default (rotation over twice the L2).
  const RotationPlan rotation =
      plan_operand_memory(backend, problem, workspace, TunerOptions{}.memory_fraction, std::nullopt,
                          false)
          .rotation;
  std::vector<std::unique_ptr<OperandSets>> sets;
  std::vector<std::unique_ptr<Profiler>> profilers;
  for (int a = 0; a < o.allocations; ++a) {
    sets.push_back(std::make_unique<OperandSets>(backend, problem, rotation, workspace,
                                                 static_cast<std::uint64_t>(a + 1), 1.0, 0.0));
    profilers.push_back(
        std::make_unique<Profiler>(backend, *sets.back(), rotation.flush, TimingPolicy{}.mode));
  }
  for (auto& s : solutions) profilers[0]->run(*s, problem, PhaseCaps{1, 0});  // load the kernels

  std::string nvml_why;
  std::unique_ptr<monitor::NvmlSource> nvml;
  if (auto library = nvml::NvmlLibrary::open(o.nvml_library, nvml_why)) {
    nvml = monitor::NvmlSource::open(std::move(library), backend.properties().pci_bus_id, o.device,
                                     nvml_why);
  }
  auto sample = [&]() -> std::optional<monitor::MonitorSample> {
    return nvml ? nvml->sample() : std::nullopt;
  };

  std::printf("# %s on %s; rotation %s; idle %.0f ms, then blocks of %d iterations\n",
              o.problem.c_str(), backend.properties().name.c_str(), rotation.describe().c_str(),
              o.idle_ms, o.block);
  if (!nvml) std::printf("# no NVML columns: %s\n", nvml_why.c_str());
  std::printf("ms,solution,allocation,median_us,energy_mj_per_it,sm_clock_mhz,power_w%s\n",
              o.samples ? ",samples_us" : "");
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.idle_ms));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  while (elapsed_ms() < o.seconds * 1e3) {
    for (int a = 0; a < o.allocations; ++a) {
      for (std::size_t i = 0; i < solutions.size(); ++i) {
        const auto before = sample();
        const Measurement m = profilers[a]->run(*solutions[i], problem, PhaseCaps{o.block, 0});
        const auto after = sample();
        if (!m.status)
          throw std::runtime_error(fmt::format("{}: {}", o.solutions[i], m.status.error));
        std::string samples;
        if (o.samples) {
          samples = ",";
          for (double x : m.samples_ms)
            samples += fmt::format("{}{:.1f}", samples.size() > 1 ? ";" : "", x * 1e3);
        }
        std::printf("%.1f,%s,%d,%.2f,%s%s\n", elapsed_ms(), o.solutions[i].c_str(), a,
                    m.stats.median_ms * 1e3,
                    nvml_columns(before, after, static_cast<int>(m.samples_ms.size())).c_str(),
                    samples.c_str());
        if (o.gap_ms > 0) {
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.gap_ms));
        }
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace gemmtune::bench

int main(int argc, char** argv) {
  using namespace gemmtune::bench;
  Options o;
  CLI::App app{"Speed of solutions over time from an idle device (power/clock drift)"};
  app.add_option("--problem", o.problem, "OP_SIGNATURE,PARAMS as in a TunableOp results file")
      ->required();
  app.add_option("--solution", o.solutions, "Solution name (repeat)")->required();
  app.add_option("--device", o.device, "CUDA device ordinal");
  app.add_option("--idle-ms", o.idle_ms, "Idle time before the first block");
  app.add_option("--seconds", o.seconds, "How long to keep the device busy");
  app.add_option("--block", o.block, "Iterations per block")->check(CLI::PositiveNumber);
  app.add_option("--allocations", o.allocations,
                 "Allocate the operands this many times and run every solution on each in turn")
      ->check(CLI::PositiveNumber);
  app.add_option("--nvml-library", o.nvml_library,
                 "NVML library for the energy, clock and power columns");
  app.add_option("--gap-ms", o.gap_ms,
                 "Idle time after each block: a device that idles between blocks keeps its power "
                 "headroom and its clocks up");
  app.add_flag("--samples", o.samples,
               "Print every iteration's time of each block (µs, in order, ';'-separated)");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune_power_drift: %s\n", e.what());
    return 1;
  }
}
