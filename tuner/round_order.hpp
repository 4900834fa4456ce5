// The order of interleaved measurement rounds (the tuner's measurement and confirmation, and the
// LLM benchmark's rounds): which of `count` entries runs at position `at` of round `round`.
//
// Contract: every round runs every entry once. From three entries on, each round starts one entry
// later than the one before (round r runs r, r+1, ... modulo count), so that every entry takes
// every position equally often over `count` rounds, and no entry runs twice in a row across the
// end of a round. Two entries alternate (a b, b a, ...): with two, any order that balances their
// positions has one follow itself somewhere, and a fixed order would hand a drifting device's
// head start to the first.
//
// Why not reverse every other round for every count, as before: the entries at the two ends then
// ran two turns back to back at each round's end, and on an H100 gemmtune's own kernels ran about
// 0.6% slower in the second of them, which cost the winner about 0.3% of its pooled time against
// the entries in the middle (the LLM benchmark's rounds of runs 46-51; bench/results/
// 2026-11-26-h100-round-order.md).
#pragma once

#include <cstddef>

namespace gemmtune {

inline std::size_t round_position(int round, std::size_t at, std::size_t count) {
  if (count <= 2) return round % 2 == 0 ? at : count - 1 - at;
  return (static_cast<std::size_t>(round) + at) % count;
}

}  // namespace gemmtune
