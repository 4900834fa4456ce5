// The profiler's caps, chunking, flush placement and rotation, on a fake clock.
#include "tuner/profiler.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "fake_backend.hpp"

namespace gemmtune {
namespace {

using testing::Behaviour;
using testing::FakeBackend;
using testing::FakeSolution;
using testing::FakeSolutionState;

struct ProfilerFixture : ::testing::Test {
  FakeBackend backend;
  Problem problem =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  std::shared_ptr<FakeSolutionState> state = std::make_shared<FakeSolutionState>();

  Measurement run(PhaseCaps caps, int copies = 1, bool flush = false,
                  TimingMode mode = TimingMode::Immediate, EarlyStop stop = {}) {
    RotationPlan plan;
    plan.copies = copies;
    OperandSets sets(backend, problem, plan, 0, 1, 1.0, 0.0);
    Profiler profiler(backend, sets, flush, mode);
    FakeSolution solution(backend.clock, state);
    return profiler.run(solution, problem, caps, stop);
  }
  void constant(double ms) {
    state->time_ms = [ms](int) { return ms; };
  }
};

TEST_F(ProfilerFixture, IterationCap) {
  constant(1.0);
  const Measurement m = run({5, 1000});
  EXPECT_EQ(m.samples_ms.size(), 5u);
  EXPECT_EQ(state->calls, 5);
  EXPECT_DOUBLE_EQ(m.stats.median_ms, 1.0);
}

TEST_F(ProfilerFixture, DurationCap) {
  constant(1.0);
  const Measurement m = run({1000, 10});
  EXPECT_EQ(m.samples_ms.size(), 10u);
  EXPECT_EQ(backend.collects, 2);  // one iteration, then the nine that fit in one chunk
  EXPECT_LE(std::accumulate(m.samples_ms.begin(), m.samples_ms.end(), 0.0), 10.0);
}

TEST_F(ProfilerFixture, DurationCapIsNotOvershotOnPurpose) {
  constant(3.0);
  const Measurement m = run({1000, 10});
  EXPECT_EQ(m.samples_ms.size(), 3u);  // a fourth would reach 12 ms
}

TEST_F(ProfilerFixture, WhicheverCapComesFirst) {
  constant(1.0);
  EXPECT_EQ(run({3, 10}).samples_ms.size(), 3u);
  EXPECT_EQ(run({30, 10}).samples_ms.size(), 10u);
}

TEST_F(ProfilerFixture, AtLeastOneIteration) {
  constant(50.0);
  EXPECT_EQ(run({100, 10}).samples_ms.size(), 1u);
  EXPECT_EQ(run({0, 0}).samples_ms.size(), 1u);
}

TEST_F(ProfilerFixture, OnlyDurationCap) {
  constant(2.0);
  EXPECT_EQ(run({0, 9}).samples_ms.size(), 4u);
}

TEST_F(ProfilerFixture, ChunksAreSizedFromTheAverage) {
  // A slow first iteration (cold) then fast ones: the chunks re-estimate and the cap holds.
  state->time_ms = [](int call) { return call == 0 ? 4.0 : 1.0; };
  const Measurement m = run({1000, 10});
  EXPECT_LE(std::accumulate(m.samples_ms.begin(), m.samples_ms.end(), 0.0), 10.0);
  // The average so far includes the cold sample, so the estimate stays on the safe side.
  EXPECT_EQ(m.samples_ms.size(), 6u);  // 4 + 5 × 1
}

TEST_F(ProfilerFixture, AFirstSampleAboveTheStopEndsThePhase) {
  constant(5.0);
  Measurement m = run({10, 1000}, 1, false, TimingMode::Queued, {4.0});
  EXPECT_EQ(m.samples_ms.size(), 1u);
  EXPECT_EQ(state->calls, 1);
  EXPECT_EQ(m.cut_after, 1);
  EXPECT_TRUE(m.status);
  EXPECT_DOUBLE_EQ(m.stats.median_ms, 5.0);

  state->calls = 0;
  m = run({10, 1000}, 1, false, TimingMode::Queued, {5.0});  // not above: the caps decide
  EXPECT_EQ(m.samples_ms.size(), 10u);
  EXPECT_EQ(m.cut_after, 0);
}

TEST_F(ProfilerFixture, OnlyTheFirstSampleIsHeldToTheStop) {
  // A later slow sample is the phase's to keep; the stop is no running check.
  state->time_ms = [](int call) { return call == 3 ? 9.0 : 1.0; };
  const Measurement m = run({10, 1000}, 1, false, TimingMode::Queued, {4.0});
  EXPECT_EQ(m.samples_ms.size(), 10u);
  EXPECT_EQ(m.cut_after, 0);
}

TEST_F(ProfilerFixture, AMedianAboveTheStopEndsThePhaseAfterItsSamples) {
  constant(5.0);
  const EarlyStop stop{0, 3, 4.0};
  Measurement m = run({10, 1000}, 1, false, TimingMode::Queued, stop);
  EXPECT_EQ(m.samples_ms.size(), 3u);
  EXPECT_EQ(state->calls, 3);  // a chunk ended at the third sample: no more were queued
  EXPECT_EQ(m.cut_after, 3);
  EXPECT_DOUBLE_EQ(m.stats.median_ms, 5.0);

  state->calls = 0;
  m = run({10, 1000}, 1, false, TimingMode::Queued, {0, 3, 5.0});  // not above: the caps decide
  EXPECT_EQ(m.samples_ms.size(), 10u);
  EXPECT_EQ(state->calls, 10);
  EXPECT_EQ(m.cut_after, 0);
}

TEST_F(ProfilerFixture, OneSlowSampleIsNotAMedianAboveTheStop) {
  state->time_ms = [](int call) { return call == 1 ? 9.0 : 1.0; };
  const Measurement m = run({10, 1000}, 1, false, TimingMode::Queued, {0, 3, 4.0});
  EXPECT_EQ(m.samples_ms.size(), 10u);
  EXPECT_EQ(m.cut_after, 0);
}

TEST_F(ProfilerFixture, CapsThatEndBeforeTheMedianStopLooksEndThePhase) {
  constant(5.0);
  const Measurement m = run({2, 1000}, 1, false, TimingMode::Queued, {0, 3, 1.0});
  EXPECT_EQ(m.samples_ms.size(), 2u);
  EXPECT_EQ(m.cut_after, 0);
}

TEST_F(ProfilerFixture, ATimerThatSeesNoTimeEndsADurationOnlyPhase) {
  constant(0.0);
  const Measurement m = run({0, 30});
  EXPECT_GE(m.samples_ms.size(), static_cast<std::size_t>(kMaxUntimedIterations));
  EXPECT_LT(m.samples_ms.size(), static_cast<std::size_t>(kMaxUntimedIterations + kMaxChunk));
}

TEST_F(ProfilerFixture, NextChunk) {
  EXPECT_EQ(next_chunk({100, 30}, 0, 0), 1);
  EXPECT_EQ(next_chunk({100, 30}, 1, 0.5), 59);  // 29.5 ms left at 0.5 ms each
  EXPECT_EQ(next_chunk({10, 30}, 1, 0.5), 9);    // iterations first
  EXPECT_EQ(next_chunk({10, 30}, 10, 5), 0);
  EXPECT_EQ(next_chunk({100, 30}, 5, 30), 0);
  EXPECT_EQ(next_chunk({0, 0}, 1, 1), 0);
  EXPECT_EQ(next_chunk({100, 0}, 40, 1e9), 60);  // no duration cap
  EXPECT_EQ(next_chunk({100, 30}, 3, 0), 97);    // a timer that sees nothing: iterations decide
  EXPECT_EQ(next_chunk({0, 30}, 1, 1e-6), kMaxChunk);  // bounded pending samples
}

TEST_F(ProfilerFixture, QueuedChunksStayWithinTheHeldQueue) {
  // Queued iterations wait behind a held stream: a chunk is never deeper than kMaxQueuedChunk,
  // while immediate ones only bound the timer's pending samples.
  constant(1e-6);
  const int iterations = 3 * kMaxQueuedChunk;
  Measurement m = run({iterations, 0}, 1, false, TimingMode::Queued);
  EXPECT_EQ(m.samples_ms.size(), static_cast<std::size_t>(iterations));
  EXPECT_EQ(backend.collects, 1 + 3);  // the first iteration alone, then three full chunks
  backend.collects = 0;
  m = run({iterations, 0}, 1, false, TimingMode::Immediate);
  EXPECT_EQ(backend.collects, 2);
  EXPECT_EQ(backend.timer_modes,
            (std::vector<TimingMode>{TimingMode::Queued, TimingMode::Immediate}));
}

TEST_F(ProfilerFixture, FlushHappensOutsideTheTimedRegion) {
  constant(1.0);
  const Measurement m = run({6, 1000}, 1, true);
  EXPECT_EQ(backend.flushes, 6);
  for (double s : m.samples_ms) EXPECT_DOUBLE_EQ(s, 1.0);
}

TEST_F(ProfilerFixture, RotatesThroughEveryCopy) {
  constant(1.0);
  run({12, 1000}, 4);
  const std::set<const void*> distinct(state->c_pointers.begin(), state->c_pointers.end());
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_NE(state->c_pointers[0], state->c_pointers[1]);
  EXPECT_EQ(state->c_pointers[0], state->c_pointers[4]);
}

TEST_F(ProfilerFixture, FailedStatusStopsThePhase) {
  constant(1.0);
  state->behaviour = Behaviour::Fail;
  const Measurement m = run({10, 1000});
  EXPECT_FALSE(m.status);
  EXPECT_EQ(m.status.error, "status 13");
  EXPECT_EQ(state->calls, 1);
  EXPECT_TRUE(m.samples_ms.empty());
}

TEST_F(ProfilerFixture, ExceptionsPropagate) {
  state->behaviour = Behaviour::Throw;
  EXPECT_THROW(run({10, 1000}), std::runtime_error);
}

TEST_F(ProfilerFixture, ABurstIsOneSampleOfItsIterationsBackToBack) {
  // One timer pair around the whole burst, its time shared out per iteration, each iteration on
  // the next operand set and with no flush even where the phases flush.
  constant(1.0);
  state->back_to_back_extra_ms = 0.5;  // each run after the first in the timed region
  RotationPlan plan;
  plan.copies = 3;
  OperandSets sets(backend, problem, plan, 0, 1, 1.0, 0.0);
  Profiler profiler(backend, sets, /*flush_between_iterations=*/true, TimingMode::Queued);
  FakeSolution solution(backend.clock, state);
  const int collects_before = backend.collects;
  const Measurement m = profiler.run_burst(solution, problem, 4);
  ASSERT_TRUE(m.status);
  ASSERT_EQ(m.samples_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(m.samples_ms.front(), (4 * 1.0 + 3 * 0.5) / 4);
  EXPECT_EQ(state->calls, 4);
  EXPECT_EQ(backend.collects - collects_before, 1);
  EXPECT_EQ(backend.flushes, 0);
  EXPECT_NE(state->c_pointers[0], state->c_pointers[1]);
  EXPECT_EQ(state->c_pointers[0], state->c_pointers[3]);
}

TEST_F(ProfilerFixture, AFailedRunLeavesABurstWithoutASample) {
  constant(1.0);
  state->behaviour = Behaviour::Fail;
  OperandSets sets(backend, problem, RotationPlan{}, 0, 1, 1.0, 0.0);
  Profiler profiler(backend, sets, false, TimingMode::Queued);
  FakeSolution solution(backend.clock, state);
  const Measurement m = profiler.run_burst(solution, problem, 20);
  EXPECT_FALSE(m.status);
  EXPECT_EQ(state->calls, 1);
  EXPECT_TRUE(m.samples_ms.empty());
}

}  // namespace
}  // namespace gemmtune
