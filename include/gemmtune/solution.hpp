// gemmtune/solution.hpp — writing your own solutions.
//
// A `Solution` is one implementation of a GEMM (a stable name, `supports(problem)` with a reason,
// its workspace need and `run`); a `SolutionProvider` enumerates an application's solutions for a
// problem and rebuilds one from its stored name. Register a provider with
// `Context::add_provider` (or `Options::providers`): its solutions are then tuned like the
// built-in ones and dispatched by `Context::gemm` when a results file names them.
// `examples/custom_provider` shows a complete one.
//
// `Operands` carries the device pointers and scalars of one call. Expected outcomes are values:
// `Support::no(reason)`, `RunStatus::failure(message)`, and `RunStatus::refusal(message)` where
// `run` turns down this call's operands before enqueuing anything (`Context::gemm` then runs
// `Default` for the call instead).
#pragma once

#include "gemmtune/problem.hpp"
#include "tuner/solution.hpp"  // IWYU pragma: export
