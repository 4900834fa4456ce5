// The CPU backend's random operands: values uniform in [-1, 1), none zero, rounded once to the
// storage type, reproducible from the seed alone.
//
// The elements are filled in blocks of kRandomFillBlock, each from a generator of its own seeded
// by (seed, block), on as many threads as OpenBLAS runs: the values depend on the seed, never on
// the number of threads. A tuning fills a rotation of at least twice the last-level cache, and
// on a host with a 260 MiB L3 one thread took 0.3-1 s per problem for 4-byte types and 6 s for
// fp16, through the generic per-element encoder; most of the quickstart's 13.6 s
// (bench/results/2026-11-27-cpu-random-fill.md).
#pragma once

#include <cstdint>

#include "tuner/dtype.hpp"

namespace gemmtune::cpu {

inline constexpr std::int64_t kRandomFillBlock = std::int64_t{1} << 18;

// Fills `elements` values of `dtype` (complex: both parts) at `data`, on up to `threads` threads.
void fill_random(void* data, DType dtype, std::int64_t elements, std::uint64_t seed, int threads);

}  // namespace gemmtune::cpu
