// The Problem the Context looks up, tunes, records and writes under: the caller's Problem with its
// batch strides in canonical form.
//
// TunableOp's params signature has no strides, so a results or untuned line parses to stride 0
// ("dense": ld × columns). cuBLAS-style and C callers spell the dense strides out; as keys those
// would never equal the file's lines, and the problem would be tuned and recorded again every run.
// So a stride equal to its dense value becomes 0, and so does every stride of a single-matrix call
// (there is nothing to stride over): equal layouts are equal keys.
//
// A stride that is neither (padding between matrices, overlapping or shared operands) stays, and
// the problem is one the signatures cannot express: its line would read back as the dense problem
// and be applied to it. The Context tunes such a problem in memory only (signature_expresses).
#pragma once

#include "tuner/problem.hpp"

namespace gemmtune::api {

Problem lookup_key(const Problem& problem) noexcept;

// The hot path's form: `problem` itself when it has no strides (the common call copies nothing),
// otherwise `scratch`, filled with lookup_key(problem).
inline const Problem& lookup_key(const Problem& problem, Problem& scratch) noexcept {
  if (problem.stride_a == 0 && problem.stride_b == 0 && problem.stride_c == 0) return problem;
  scratch = lookup_key(problem);
  return scratch;
}

// Whether TunableOp's signatures denote exactly this key (lookup_key's result): whether its line
// in a results or untuned file would read back as this problem and no other.
inline bool signature_expresses(const Problem& key) noexcept {
  return key.stride_a == 0 && key.stride_b == 0 && key.stride_c == 0;
}

}  // namespace gemmtune::api
