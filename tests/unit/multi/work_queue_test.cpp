// WorkQueue: largest first, a problem whose worker died goes back to the head of the queue once
// and is given up at the second death, and — simulated with devices of different speeds taking
// work as they free up — fast devices take more and all finish close together.
#include "drivers/multi/work_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace gemmtune {
namespace {

TEST(WorkQueue, HandsOutTheLargestFirst) {
  WorkQueue q({3, 10, 1, 10, 7});
  std::vector<std::size_t> order;
  while (auto id = q.take()) order.push_back(*id);
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 3, 4, 0, 2}));  // ties keep the given order
  EXPECT_EQ(q.in_flight(), 5u);
  EXPECT_EQ(q.waiting(), 0u);
}

TEST(WorkQueue, ALostProblemGoesBackToTheHeadOnce) {
  WorkQueue q({5, 4, 3});
  const auto first = *q.take();
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(q.worker_lost(first, "signal 9"), WorkQueue::Lost::Requeued);
  EXPECT_EQ(q.waiting(), 3u);
  EXPECT_EQ(q.in_flight(), 0u);
  EXPECT_EQ(*q.take(), 0u);  // next free worker gets it first
  EXPECT_EQ(q.worker_lost(0, "signal 6"), WorkQueue::Lost::GivenUp);
  EXPECT_EQ(q.deaths(0), (std::vector<std::string>{"signal 9", "signal 6"}));
  EXPECT_EQ(q.waiting(), 2u);
  EXPECT_EQ(*q.take(), 1u);
}

TEST(WorkQueue, AFinishedProblemIsNeverRetried) {
  WorkQueue q({1, 2});
  const auto id = *q.take();
  q.finish(id);
  EXPECT_EQ(q.in_flight(), 0u);
  EXPECT_EQ(q.waiting(), 1u);
  EXPECT_THROW(q.finish(id), std::logic_error);
}

TEST(WorkQueue, DrainGivesUpWhatWaits) {
  WorkQueue q({1, 2, 3});
  const auto flying = *q.take();
  const auto left = q.drain();
  EXPECT_EQ(left.size(), 2u);
  EXPECT_EQ(q.waiting(), 0u);
  EXPECT_FALSE(q.take());
  q.finish(flying);
}

TEST(WorkQueue, MaxDeathsIsConfigurable) {
  WorkQueue q({1}, 1);
  EXPECT_EQ(q.worker_lost(*q.take(), "x"), WorkQueue::Lost::GivenUp);
}

// Event simulation: each device takes the next problem when it frees up and needs cost/speed.
struct Simulated {
  std::vector<double> busy;
  std::vector<std::size_t> count;
  double makespan = 0;
};

Simulated simulate(const std::vector<double>& costs, const std::vector<double>& speeds) {
  WorkQueue q(costs);
  Simulated s{std::vector<double>(speeds.size(), 0), std::vector<std::size_t>(speeds.size(), 0), 0};
  std::vector<double> free_at(speeds.size(), 0);
  while (true) {
    const auto d = static_cast<std::size_t>(std::min_element(free_at.begin(), free_at.end()) -
                                            free_at.begin());
    const auto id = q.take();
    if (!id) break;
    const double t = q.cost(*id) / speeds[d];
    free_at[d] += t;
    s.busy[d] += t;
    ++s.count[d];
    q.finish(*id);
  }
  s.makespan = *std::max_element(free_at.begin(), free_at.end());
  return s;
}

std::vector<double> llm_like_costs() {
  // A few large GEMMs and many small ones, like a recorded LLM run.
  std::mt19937 random(11);
  std::vector<double> costs;
  for (int i = 0; i < 200; ++i) {
    const double m = std::pow(2.0, std::uniform_int_distribution<>(4, 13)(random));
    costs.push_back(2 * m * 4096 * 4096 + 2.0 * 512 * 512 * 512);
  }
  return costs;
}

TEST(WorkQueue, EqualDevicesFinishTogether) {
  const auto costs = llm_like_costs();
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  for (const std::size_t n : {1u, 2u, 4u, 8u}) {
    const auto s = simulate(costs, std::vector<double>(n, 1.0));
    const double ideal = total / static_cast<double>(n);
    EXPECT_LE(s.makespan, ideal * 1.1) << n << " devices";  // >= 0.9x linear on this mix
  }
}

TEST(WorkQueue, FastDevicesTakeMore) {
  const auto costs = llm_like_costs();
  const auto s = simulate(costs, {1.0, 2.0});
  EXPECT_GT(s.busy[1] * 2.0, s.busy[0] * 1.5);  // work done = busy time x speed
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  EXPECT_LE(s.makespan, total / 3.0 * 1.1);  // the ideal split of work between speeds 1 and 2
}

TEST(WorkQueue, BeatsRoundRobin) {
  // PyTorch deals problems round-robin in file order; a heavy problem every other line lands on
  // one device.
  std::vector<double> costs;
  for (int i = 0; i < 100; ++i) costs.push_back(i % 2 == 0 ? 100.0 : 1.0);
  std::vector<double> round_robin(2, 0);
  for (std::size_t i = 0; i < costs.size(); ++i) round_robin[i % 2] += costs[i];
  const auto s = simulate(costs, {1.0, 1.0});
  EXPECT_LT(s.makespan, *std::max_element(round_robin.begin(), round_robin.end()) * 0.6);
}

}  // namespace
}  // namespace gemmtune
