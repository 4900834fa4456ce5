#include "drivers/mamf/shape_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tuner/error.hpp"

namespace gemmtune::mamf {

Problem problem_for_shape(const Shape& s, DType dtype) {
  const OpKind op = info(dtype).is_float8 ? OpKind::ScaledGemm : OpKind::Gemm;
  return Problem::make(op, dtype, Transpose::T, Transpose::N, s.n, s.m, s.k);
}

ShapeBench::ShapeBench(Backend& backend, const Problem& problem, const BenchOptions& options,
                       std::size_t workspace_bytes)
    : backend_(backend), problem_(problem), options_(options) {
  const auto budget = static_cast<std::size_t>(
      static_cast<double>(backend.available_memory_bytes()) * options.memory_fraction);
  const std::size_t set = OperandSets::set_bytes(problem);
  const std::size_t fixed = OperandSets::fixed_bytes(problem) + workspace_bytes;
  const std::size_t for_sets = budget > fixed ? budget - fixed : 0;
  plan_ = options.rotate
              ? plan_rotation(set, backend.properties().last_level_cache_bytes, for_sets,
                              std::nullopt, false)
              : plan_rotation(set, backend.properties().last_level_cache_bytes, for_sets, 0.0,
                              true);
  if (!plan_.fits) {
    throw InputError(fmt::format("{}: operands need {:.1f} MiB, more than the {:.1f} MiB allowed",
                                 problem.params_signature(), static_cast<double>(set + fixed) / (1 << 20),
                                 static_cast<double>(budget) / (1 << 20)));
  }
  operands_ = std::make_unique<OperandSets>(backend, problem, plan_, workspace_bytes, options.seed,
                                            1.0, 0.0);
  profiler_ = std::make_unique<Profiler>(backend, *operands_, plan_.flush);
}

Measurement ShapeBench::measure(Solution& solution) {
  if (options_.warmup_iterations > 0) {
    Measurement warm = profiler_->run(solution, problem_, {options_.warmup_iterations, 0});
    if (!warm.status) return warm;
  }
  return profiler_->run(solution, problem_, {std::max(options_.iterations, 1), 0});
}

Measurement ShapeBench::run_for(Solution& solution, double wall_ms) {
  // Sized by wall time rather than by a device-time cap: where the flush costs far more than the
  // GEMM (a CPU with a large last-level cache) a device-time cap would run for minutes.
  const double wanted = wall_ms_per_iteration_ > 0 ? wall_ms / wall_ms_per_iteration_ : 1.0;
  const int iterations = static_cast<int>(std::clamp(wanted, 1.0, 1e6));
  const auto start = std::chrono::steady_clock::now();
  Measurement m = profiler_->run(solution, problem_, {iterations, 0});
  const double spent =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!m.samples_ms.empty()) wall_ms_per_iteration_ = spent / static_cast<double>(m.samples_ms.size());
  return m;
}

}  // namespace gemmtune::mamf
