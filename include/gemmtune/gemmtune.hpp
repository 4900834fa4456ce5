// gemmtune.hpp — tuned GEMMs for any C++ program: the whole public C++ API.
//
//   gemmtune/problem.hpp   Problem, OpKind, Transpose, DType, parse_problem: what a GEMM is
//   gemmtune/solution.hpp  Solution, SolutionProvider, Operands: bring your own kernels
//   gemmtune/options.hpp   Options (and Options::from_environment: the GEMMTUNE_* variables)
//   gemmtune/context.hpp   Context: load a results file, gemm(), lookup(), online tuning,
//                          untuned recording, and the torch.cuda.tunable verbs
//   gemmtune.h             the same verbs as a C API
//
// Link `gemmtune::gemmtune` (CMake: find_package(gemmtune CONFIG REQUIRED)) or use
// `pkg-config --cflags --libs gemmtune`. Reference: docs/api.md.
#pragma once

#include "gemmtune/context.hpp"
#include "gemmtune/options.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/solution.hpp"
