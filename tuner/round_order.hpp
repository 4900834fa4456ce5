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
// ran two turns back to back at each round's end, and gemmtune's own kernels ran slower in the
// second of them (0.3-1.0% on average over the LLM benchmark's decode problems in 13 runs on H100s
// and H200s, up to 4.5% on small ones), which cost whichever stood at an end about half that in
// its pooled median (bench/results/2026-11-26-h100-round-order.md).
#pragma once

#include <cstddef>

namespace gemmtune {

inline std::size_t round_position(int round, std::size_t at, std::size_t count) {
  if (count <= 2) return round % 2 == 0 ? at : count - 1 - at;
  return (static_cast<std::size_t>(round) + at) % count;
}

}  // namespace gemmtune
