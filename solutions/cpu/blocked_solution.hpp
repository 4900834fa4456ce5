// Cache-blocked GEMM kernels on the CPU, one Solution per tile shape.
//
// GotoBLAS-style: for each nc-column block of C and each mc-row block, the k dimension is walked in
// kc steps; the A block (mc×kc) and the B panel (kc×nc) are packed (transposes resolved, narrow
// types widened) into micro-panels, and a register-blocked micro-kernel accumulates into an mc×nc
// tile that is written to C once, with alpha, beta and the bias. fp32/tf32 and fp16/bf16 accumulate
// in float, fp64 in double. Single-threaded: the tile shape is what is being tuned.
//
// Names are stable and rebuild the solution: "Cpu_Blocked_mc_64_kc_256_nc_256".
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tuner/solution.hpp"

namespace gemmtune::cpu {

struct BlockedTile {
  int mc = 64;
  int kc = 256;
  int nc = 256;
  friend bool operator==(const BlockedTile&, const BlockedTile&) = default;
};

// The tile shapes the CPU provider offers (a few that suit L1/L2 sizes of current CPUs).
std::vector<BlockedTile> blocked_tiles();

std::string blocked_solution_name(const BlockedTile& tile);
// The tile a name denotes, or nullopt when it is not a blocked solution's name (or a bad tile).
std::optional<BlockedTile> parse_blocked_solution_name(std::string_view name);

std::unique_ptr<Solution> make_blocked_solution(const BlockedTile& tile);

}  // namespace gemmtune::cpu
