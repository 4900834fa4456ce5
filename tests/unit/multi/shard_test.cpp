// Shards: parsing, the launchers' environment and its precedence, and assign_shares's promises —
// disjoint, complete, balanced, and the same whatever order the problems come in.
#include "drivers/multi/shard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

EnvironmentLookup lookup(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Shard, ParsesIOverN) {
  const Shard s = parse_shard("1/4");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 4);
  EXPECT_TRUE(s.active());
  EXPECT_FALSE(parse_shard("0/1").active());
  for (const char* bad : {"4/4", "-1/2", "1/0", "1", "a/b", "1/2/3", "", "1 /2"}) {
    EXPECT_THROW(parse_shard(bad), InputError) << bad;
  }
}

TEST(Shard, ReadsEachLauncher) {
  auto s = shard_from_environment(
      lookup({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 1);
  EXPECT_EQ(s->count, 2);
  EXPECT_EQ(s->source, "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE");

  s = shard_from_environment(lookup({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 2);

  s = shard_from_environment(lookup({{"SLURM_PROCID", "3"}, {"SLURM_STEP_NUM_TASKS", "8"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 8);
  EXPECT_EQ(s->source, "SLURM_PROCID/SLURM_STEP_NUM_TASKS");

  EXPECT_FALSE(shard_from_environment(lookup({})));
  EXPECT_FALSE(shard_from_environment(lookup({{"OMPI_COMM_WORLD_RANK", "0"}})));  // no size
}

TEST(Shard, OpenMpiBeforePmiBeforeSlurm) {
  const auto s = shard_from_environment(lookup({{"SLURM_PROCID", "0"},
                                                {"SLURM_NTASKS", "2"},
                                                {"PMI_RANK", "1"},
                                                {"PMI_SIZE", "2"},
                                                {"OMPI_COMM_WORLD_RANK", "3"},
                                                {"OMPI_COMM_WORLD_SIZE", "4"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 4);
}

TEST(Shard, SrunStepSizeBeforeTheBatchScriptsTaskCount) {
  const auto s = shard_from_environment(
      lookup({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_NTASKS", "16"}}));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 2);
}

// A batch script's own environment, outside srun (as `env` prints it there): no step, no shard.
// Taking shard 0 of SLURM_NTASKS there tuned a quarter of the problems and ended with exit 0.
TEST(Shard, ABatchScriptOutsideSrunIsNoShard) {
  EXPECT_FALSE(shard_from_environment(lookup({{"SLURM_PROCID", "0"},
                                              {"SLURM_NTASKS", "4"},
                                              {"SLURM_NPROCS", "4"},
                                              {"SLURM_LOCALID", "0"},
                                              {"SLURM_JOB_ID", "200505"}})));
}

TEST(Shard, MalformedLauncherValuesAreNamed) {
  try {
    shard_from_environment(lookup({{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PMI_RANK"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shard_from_environment(lookup({{"PMI_RANK", "2"}, {"PMI_SIZE", "2"}})), InputError);
}

std::vector<std::string> keys_for(std::size_t n) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i) keys.push_back(std::string("k").append(std::to_string(i)));
  return keys;
}

TEST(Shard, SharesAreDisjointCompleteAndBalanced) {
  std::mt19937 random(7);
  std::vector<double> costs;
  for (int i = 0; i < 200; ++i) costs.push_back(std::uniform_real_distribution<>(1, 100)(random));
  const auto keys = keys_for(costs.size());
  for (const int count : {1, 2, 3, 8}) {
    const auto share = assign_shares(costs, keys, count);
    ASSERT_EQ(share.size(), costs.size());
    std::vector<double> load(static_cast<std::size_t>(count), 0);
    for (std::size_t i = 0; i < costs.size(); ++i) {
      ASSERT_GE(share[i], 0);
      ASSERT_LT(share[i], count);
      load[static_cast<std::size_t>(share[i])] += costs[i];
    }
    const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
    const double largest = *std::max_element(costs.begin(), costs.end());
    // Greedy largest-first is within one problem of the mean.
    for (const double l : load) EXPECT_LE(l, total / count + largest) << count;
  }
}

TEST(Shard, LargestProblemsAreSpreadFirst) {
  const std::vector<double> costs{100, 1, 1, 1, 90, 1, 80};
  const auto share = assign_shares(costs, keys_for(costs.size()), 3);
  EXPECT_NE(share[0], share[4]);
  EXPECT_NE(share[0], share[6]);
  EXPECT_NE(share[4], share[6]);
}

TEST(Shard, SameSplitWhateverTheInputOrder) {
  std::vector<double> costs{5, 3, 3, 9, 1, 3, 7, 2};
  auto keys = keys_for(costs.size());
  const auto share = assign_shares(costs, keys, 3);
  std::map<std::string, int> by_key;
  for (std::size_t i = 0; i < keys.size(); ++i) by_key[keys[i]] = share[i];

  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), 0);
  std::reverse(order.begin(), order.end());
  std::vector<double> costs2;
  std::vector<std::string> keys2;
  for (const auto i : order) {
    costs2.push_back(costs[i]);
    keys2.push_back(keys[i]);
  }
  const auto share2 = assign_shares(costs2, keys2, 3);
  for (std::size_t i = 0; i < keys2.size(); ++i) EXPECT_EQ(share2[i], by_key[keys2[i]]) << keys2[i];
}

TEST(Shard, CostIsFlopsWithAFloor) {
  const Problem big =
      parse_problem("GemmTunableOp_float_NN", "nn_4096_4096_4096_ld_4096_4096_4096");
  const Problem tiny = parse_problem("GemmTunableOp_float_NN", "nn_8_8_8_ld_8_8_8");
  EXPECT_GT(problem_cost(big), problem_cost(tiny));
  EXPECT_GE(problem_cost(tiny), 2.0 * 512 * 512 * 512);
  EXPECT_DOUBLE_EQ(problem_cost(big), big.flops() + 2.0 * 512 * 512 * 512);
}

}  // namespace
}  // namespace gemmtune
