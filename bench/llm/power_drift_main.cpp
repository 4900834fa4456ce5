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
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "drivers/backend_factory.hpp"
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
};

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

  std::printf("# %s on %s; rotation %s; idle %.0f ms, then blocks of %d iterations\n",
              o.problem.c_str(), backend.properties().name.c_str(), rotation.describe().c_str(),
              o.idle_ms, o.block);
  std::printf("ms,solution,allocation,median_us\n");
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.idle_ms));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  while (elapsed_ms() < o.seconds * 1e3) {
    for (int a = 0; a < o.allocations; ++a) {
      for (std::size_t i = 0; i < solutions.size(); ++i) {
        const Measurement m = profilers[a]->run(*solutions[i], problem, PhaseCaps{o.block, 0});
        if (!m.status)
          throw std::runtime_error(fmt::format("{}: {}", o.solutions[i], m.status.error));
        std::printf("%.1f,%s,%d,%.2f\n", elapsed_ms(), o.solutions[i].c_str(), a,
                    m.stats.median_ms * 1e3);
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
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune_power_drift: %s\n", e.what());
    return 1;
  }
}
