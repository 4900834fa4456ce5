// Shards: one tuning job split across the ranks of a launcher (mpirun, srun) or `--shard I/N`,
// each rank tuning its share with its local devices; the shares are gathered afterwards with
// `gemmtune db merge` (docs/multi-gpu.md).
//
// Contract:
// - Ranks never talk to each other: every rank reads the same inputs, dedupes them the same way
//   and keeps its own share. Shares are disjoint, cover every problem, and depend only on the set
//   of problems — not on the order of input files or lines, nor on what a rank already holds —
//   so that every rank computes the same split.
// - Shares are balanced by estimated cost (problem_cost): problems sorted largest first (ties by
//   signature), each given to the share with the least cost so far (lowest index on a tie).
// - Where the rank comes from, first found wins: `--shard I/N`; OMPI_COMM_WORLD_RANK/SIZE
//   (OpenMPI's mpirun); PMI_RANK/PMI_SIZE (MPICH, Intel MPI); SLURM_PROCID with
//   SLURM_STEP_NUM_TASKS, else SLURM_NTASKS (srun). The caller reads the environment once at start
//   and passes a lookup, so that tests can give their own.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/problem.hpp"

namespace gemmtune {

struct Shard {
  int index = 0;
  int count = 1;
  std::string source = "none";  // "--shard", "OMPI_COMM_WORLD_RANK/SIZE", ...

  bool active() const { return count > 1; }
};

// "I/N" with 0 <= I < N; anything else is an InputError saying what is expected.
Shard parse_shard(std::string_view text, std::string source = "--shard");

// The launcher's rank and size, if the environment names them; a malformed value is an
// InputError naming the variable.
using EnvironmentLookup = std::function<const char*(const char*)>;
std::optional<Shard> shard_from_environment(const EnvironmentLookup& getenv);

// The estimated cost of tuning a problem: its FLOPs plus a floor of a 512x512x512 GEMM's, since
// every problem pays a fixed price (allocation, screening every candidate) however small it is.
double problem_cost(const Problem& problem);

// share[i] of problem i (costs[i], keys[i] its signature text) among `count` shares.
std::vector<int> assign_shares(std::span<const double> costs, std::span<const std::string> keys,
                               int count);

}  // namespace gemmtune
