// ShapeBench: measures solutions on one MAMF shape the way mamf-finder.py does, on any Backend.
//
// The GEMM is torch.mm(A, B) of mamf-finder: A is M×K row-major, B the transpose of an N×K
// row-major matrix, C M×N row-major; in BLAS's column-major terms Cᵀ = op(Bᵀ)·Aᵀ, the "TN" call
// with m=N, n=M, k=K and lda=ldb=K, ldc=N (problem_for_shape). Float8 types run as ScaledGemm
// with unit scales and a float8 C, as torch._scaled_mm(A, B, scale, scale, out=C) does.
//
// Contract: operands are allocated and filled with random values before any timing (never
// zeros). Before every iteration, outside its timer pair, the cache is flushed the way
// mamf-finder does it — a zero fill of a buffer of max(256 MiB, 2 × last-level cache) — and C is
// re-randomized from a random copy, so that each iteration writes fresh output; with `rotate`,
// the operands instead rotate through copies covering twice the cache and nothing runs between
// iterations. measure() issues the warm-up and timed iterations back to back, with no
// synchronization between them, and keeps the timed samples (ms, one timer pair each).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "drivers/mamf/shape_range.hpp"
#include "tuner/backend.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/problem.hpp"
#include "tuner/profiler.hpp"
#include "tuner/rotation.hpp"

namespace gemmtune::mamf {

Problem problem_for_shape(const Shape& shape, DType dtype);

struct BenchOptions {
  int warmup_iterations = 50;
  int iterations = 100;
  bool rotate = false;  // rotate operand copies instead of flushing the cache
  std::uint64_t seed = 42;
  double memory_fraction = 0.8;  // of the backend's available memory
};

// mamf-finder's flush buffer: 256 MiB, or twice the last-level cache where that is larger.
std::size_t flush_bytes(const Backend& backend);

class ShapeBench {
 public:
  // Allocates the operands (with room for `workspace_bytes`); `flush` is the buffer zeroed before
  // every iteration (see flush_bytes; unused with `rotate`). Throws InputError when one operand
  // set does not fit in the allowed memory.
  ShapeBench(Backend& backend, const Problem& problem, const BenchOptions& options,
             std::size_t workspace_bytes, Buffer& flush);

  // Warm-up iterations, then the timed ones; the status says whether the solution ran.
  Measurement measure(Solution& solution);
  // Timed iterations for about `wall_ms` of wall time (the work between iterations included),
  // sized from the wall time per iteration of the previous call; the first call runs one.
  Measurement run_for(Solution& solution, double wall_ms);

  const RotationPlan& rotation() const { return plan_; }
  const Problem& problem() const { return problem_; }

 private:
  // Runs `count` iterations and returns the samples of all but the first `skip`.
  // 64-bit counts: --num_warmup_iterations + --num_iterations may exceed INT_MAX.
  Measurement iterate(Solution& solution, std::int64_t count, std::int64_t skip);
  void between_iterations(const Operands& operands);

  Backend& backend_;
  Problem problem_;
  BenchOptions options_;
  Buffer& flush_;
  RotationPlan plan_;
  std::unique_ptr<OperandSets> operands_;
  std::unique_ptr<Buffer> random_c_;  // what C is reset to before each iteration
  std::size_t c_bytes_ = 0;
  double wall_ms_per_iteration_ = 0;  // measured by run_for
};

}  // namespace gemmtune::mamf
