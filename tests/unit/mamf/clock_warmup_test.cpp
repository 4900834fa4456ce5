// Warm-up until timings settle: the detector, and the loop's stop conditions.
#include "drivers/mamf/clock_warmup.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gemmtune::mamf {
namespace {

TEST(ClockWarmup, SettlesOnceTheLastWindowsAgree) {
  SettleOptions o;
  o.min_windows = 3;
  o.stable_windows = 3;
  o.tolerance_percent = 1.0;
  SettleDetector d(o);
  // Clocks ramping up from idle, then flat.
  EXPECT_FALSE(d.add(500));
  EXPECT_FALSE(d.add(600));
  EXPECT_FALSE(d.add(690));
  EXPECT_FALSE(d.add(700));  // 600, 690, 700: still ramping
  EXPECT_FALSE(d.add(698));  // 690, 700, 698: 1.43% apart
  EXPECT_TRUE(d.add(699));   // 700, 698, 699: 0.29% apart
}

TEST(ClockWarmup, SpreadIsMaxMinusMinOverMax) {
  SettleOptions o;
  o.min_windows = 2;
  o.stable_windows = 2;
  o.tolerance_percent = 1.0;
  SettleDetector d(o);
  EXPECT_EQ(d.spread_percent(), 100.0);
  d.add(100);
  EXPECT_FALSE(d.settled());
  d.add(99.5);
  EXPECT_NEAR(d.spread_percent(), 0.5, 1e-9);
  EXPECT_TRUE(d.settled());
}

TEST(ClockWarmup, NeedsTheMinimumWindows) {
  SettleOptions o;
  o.min_windows = 5;
  o.stable_windows = 2;
  SettleDetector d(o);
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(d.add(100));
  EXPECT_TRUE(d.add(100));
}

TEST(ClockWarmup, LoopStopsWhenSettledAndReportsWindows) {
  SettleOptions o;
  o.min_windows = 3;
  o.stable_windows = 3;
  std::atomic<bool> stop{false};
  std::vector<double> values{100, 200, 300, 300, 300, 300};
  std::size_t next = 0;
  const WarmupResult r = warm_up(o, [&](double ms) {
    EXPECT_EQ(ms, o.window_ms);
    return values.at(next++);
  }, stop);
  EXPECT_TRUE(r.settled);
  EXPECT_EQ(r.windows, 5);
  EXPECT_EQ(r.last_tflops, 300);
  EXPECT_GE(r.seconds, 0);
}

TEST(ClockWarmup, ZeroSecondsSkipsAndStopInterrupts) {
  SettleOptions o;
  o.max_seconds = 0;
  std::atomic<bool> stop{false};
  int calls = 0;
  EXPECT_TRUE(warm_up(o, [&](double) { return ++calls, 1.0; }, stop).skipped);
  EXPECT_EQ(calls, 0);
  o.max_seconds = 30;
  stop = true;
  const WarmupResult r = warm_up(o, [&](double) { return ++calls, 1.0; }, stop);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(calls, 0);
}

TEST(ClockWarmup, GivesUpUnsettledAtTheTimeLimit) {
  SettleOptions o;
  o.max_seconds = 0.05;
  std::atomic<bool> stop{false};
  double v = 1;
  const WarmupResult r = warm_up(o, [&](double) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return v *= 1.5;  // never settles
  }, stop);
  EXPECT_FALSE(r.settled);
  EXPECT_GE(r.seconds, 0.05);
}

}  // namespace
}  // namespace gemmtune::mamf
