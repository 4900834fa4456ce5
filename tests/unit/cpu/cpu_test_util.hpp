// Helpers for CPU solution tests: problems of every shape the tests sweep, and running a solution
// on the engine's own operand sets (so the tests exercise the same fills and layouts tuning does).
#pragma once

#include <fmt/format.h>

#include <complex>
#include <string>
#include <vector>

#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/elements.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cpu::testing {

inline std::string describe(const Problem& p) {
  return fmt::format("{},{}", p.op_signature(), p.params_signature());
}

// A problem with leading dimensions `pad` above the minimum and, when batched, gaps between
// matrices, so that solutions that assume dense layouts fail.
inline Problem make_problem(OpKind op, DType t, Transpose ta, Transpose tb, std::int64_t m,
                            std::int64_t n, std::int64_t k, std::int64_t pad = 0,
                            std::int64_t batch = 1) {
  Problem p = Problem::make(op, t, ta, tb, m, n, k);
  p.lda += pad;
  p.ldb += pad;
  p.ldc += pad;
  p.batch = batch;
  if (batch > 1) {
    p.stride_a = p.lda * p.a_cols() + 5;
    p.stride_b = p.ldb * p.b_cols() + 3;
    p.stride_c = p.ldc * p.n + 7;
  }
  return p;
}

struct RunResult {
  std::vector<double> c;  // check C after the run
  RunStatus status;
};

// Runs `solution` once on copy 0 of fresh operand sets (fixed seed, so every solution sees the
// same inputs) and returns C.
inline RunResult run_once(CpuBackend& backend, Solution& solution, const Problem& p,
                          double alpha = 1.0, double beta = 0.0) {
  RotationPlan plan;
  plan.copies = 1;
  OperandSets sets(backend, p, plan, solution.workspace_bytes(p), 17, alpha, beta);
  sets.reset_check_output();
  RunResult r;
  r.status = solution.run(p, sets.check_operands(), backend.stream());
  r.c = sets.read_check_output();
  return r;
}

}  // namespace gemmtune::cpu::testing
