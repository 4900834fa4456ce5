// The order of interleaved rounds: every round runs every entry once, every entry takes every
// position equally often, and from three entries on none runs twice in a row across a round's end.
#include "tuner/round_order.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace gemmtune {
namespace {

std::vector<std::size_t> order(int round, std::size_t count) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at < count; ++at) out.push_back(round_position(round, at, count));
  return out;
}

TEST(RoundOrder, EveryRoundRunsEveryEntryOnce) {
  for (std::size_t count = 1; count <= 9; ++count) {
    for (int round = 0; round < 20; ++round) {
      const auto o = order(round, count);
      EXPECT_EQ(std::set<std::size_t>(o.begin(), o.end()).size(), count) << count << " " << round;
      for (const std::size_t e : o) EXPECT_LT(e, count);
    }
  }
}

TEST(RoundOrder, NoEntryFollowsItselfFromThreeEntriesOn) {
  for (std::size_t count = 3; count <= 9; ++count) {
    for (int round = 0; round + 1 < 20; ++round) {
      EXPECT_NE(order(round, count).back(), order(round + 1, count).front())
          << count << " entries, round " << round;
    }
  }
}

TEST(RoundOrder, EveryPositionEquallyOftenOverCountRounds) {
  for (std::size_t count = 2; count <= 9; ++count) {
    std::vector<std::vector<int>> times(count, std::vector<int>(count, 0));  // entry, position
    const int rounds = count == 2 ? 2 : static_cast<int>(count);
    for (int round = 0; round < rounds; ++round) {
      const auto o = order(round, count);
      for (std::size_t at = 0; at < count; ++at) ++times[o[at]][at];
    }
    for (std::size_t e = 0; e < count; ++e) {
      for (std::size_t at = 0; at < count; ++at) EXPECT_EQ(times[e][at], 1) << count;
    }
  }
}

TEST(RoundOrder, TwoEntriesAlternate) {
  EXPECT_EQ(order(0, 2), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(order(1, 2), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(order(2, 2), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(order(1, 4), (std::vector<std::size_t>{1, 2, 3, 0}));
}

}  // namespace
}  // namespace gemmtune
