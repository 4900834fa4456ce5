// The queued timer on a real GPU: with the stream held while a chunk is issued, the host's time
// between an iteration's begin event and its work is out of the samples; without, it is in them.
// A hold that cannot be released (the host synchronizes inside an iteration) ends by its timeout
// and the timer goes on unheld; a timer dropped mid-chunk releases the stream; an earlier failed
// call does not fail the next hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "device_test.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_timer.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

using namespace std::chrono_literals;

constexpr auto kHostGap = 300us;  // far longer than the device work of one iteration
const double kHostGapMs = std::chrono::duration<double, std::milli>(kHostGap).count();

class QueuedTimerTest : public gpu_test::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    buffer_ = backend_->allocate(1 << 20);
  }
  // One iteration whose host side sleeps between the begin event and the device work.
  void slow_host_iteration(IterationTimer& timer) {
    timer.begin_iteration();
    std::this_thread::sleep_for(kHostGap);
    backend_->fill_bytes(*buffer_, 1);
    timer.end_iteration();
  }
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  std::unique_ptr<Buffer> buffer_;
};

TEST_F(QueuedTimerTest, QueuedSamplesLeaveTheHostOut) {
  for (const TimingMode mode : {TimingMode::Immediate, TimingMode::Queued}) {
    auto timer = backend_->make_timer(mode);
    for (int i = 0; i < 20; ++i) slow_host_iteration(*timer);
    const std::vector<double> samples = timer->collect_ms();
    ASSERT_EQ(samples.size(), 20u);
    if (mode == TimingMode::Immediate) {
      EXPECT_GT(median(samples), 0.8 * kHostGapMs) << "the device waited for the host";
    } else {
      EXPECT_LT(median(samples), 0.2 * kHostGapMs) << "the device ran the memsets back to back";
    }
  }
}

TEST_F(QueuedTimerTest, AHoldThatTimesOutEndsHolding) {
  cuda::StreamHold hold;
  const auto stream = static_cast<cudaStream_t>(backend_->stream());
  cuda::EventTimer timer(stream, &hold);
  const auto start = std::chrono::steady_clock::now();
  timer.begin_iteration();
  backend_->synchronize();  // waits for the held stream: only the timeout frees it
  timer.end_iteration();
  ASSERT_EQ(timer.collect_ms().size(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - start, cuda::EventTimer::kHoldTimeout);
  EXPECT_EQ(timer.held_timeouts(), 1);

  // From then on iterations run as issued: the host's gap is back in the samples.
  for (int i = 0; i < 5; ++i) slow_host_iteration(timer);
  const std::vector<double> samples = timer.collect_ms();
  ASSERT_EQ(samples.size(), 5u);
  EXPECT_GT(median(samples), 0.8 * kHostGapMs);
  EXPECT_EQ(timer.held_timeouts(), 1);
}

TEST_F(QueuedTimerTest, ADroppedTimerReleasesTheStream) {
  {
    auto timer = backend_->make_timer(TimingMode::Queued);
    timer->begin_iteration();
    backend_->fill_bytes(*buffer_, 2);
    timer->end_iteration();
  }  // as when a solution throws mid-chunk
  const auto start = std::chrono::steady_clock::now();
  backend_->synchronize();
  EXPECT_LT(std::chrono::steady_clock::now() - start, cuda::EventTimer::kHoldTimeout / 2);
}

// A timer dropped mid-chunk (a solution threw), then at once a new one: the first hold's kernel
// must end on its release, not spin until its timeout and make the second hold look timed out.
TEST_F(QueuedTimerTest, AHoldRightAfterADroppedOneIsNotTimedOut) {
  cuda::StreamHold hold;
  const auto stream = static_cast<cudaStream_t>(backend_->stream());
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 20; ++round) {
    {
      cuda::EventTimer dropped(stream, &hold);
      dropped.begin_iteration();
      backend_->fill_bytes(*buffer_, 4);
      dropped.end_iteration();
    }  // released, not synchronized
    cuda::EventTimer timer(stream, &hold);
    timer.begin_iteration();
    backend_->fill_bytes(*buffer_, 5);
    timer.end_iteration();
    ASSERT_EQ(timer.collect_ms().size(), 1u);
    ASSERT_EQ(timer.held_timeouts(), 0) << "round " << round;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, cuda::EventTimer::kHoldTimeout);
}

// A failed allocation (the tuner catches it and goes on to the next problem) leaves no error
// behind for the next launch check to take for its own: the stream hold's launch stays clean.
TEST_F(QueuedTimerTest, AFailedAllocationDoesNotFailTheNextHold) {
  EXPECT_THROW(backend_->allocate(std::size_t{1} << 60), Error);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  auto timer = backend_->make_timer(TimingMode::Queued);
  timer->begin_iteration();
  backend_->fill_bytes(*buffer_, 3);
  timer->end_iteration();
  EXPECT_EQ(timer->collect_ms().size(), 1u);
}

// The burst check's graph replays (Backend::capture_runs): runs captured once and replayed whole,
// so that neither the host's time to issue each run nor a launch gap is in the sample.
TEST_F(QueuedTimerTest, CapturedRunsReplayWithoutTheHost) {
  std::string why;
  int issued = 0;
  const auto slow_host_run = [&](void*) {
    ++issued;
    std::this_thread::sleep_for(kHostGap);
    backend_->fill_bytes(*buffer_, 6);  // on the backend's stream, which is being captured
    return RunStatus::success();
  };
  auto runs = backend_->capture_runs(slow_host_run, 20, why);
  ASSERT_NE(runs, nullptr) << why;
  EXPECT_EQ(issued, 20);  // issued while capturing, never again
  for (int replay = 0; replay < 3; ++replay) {
    const std::optional<double> ms = runs->replay_ms_per_run();
    ASSERT_TRUE(ms.has_value());
    EXPECT_GT(*ms, 0);
    EXPECT_LT(*ms, 0.2 * kHostGapMs) << "the replay ran the memsets without the host";
  }
  EXPECT_EQ(issued, 20);
}

TEST_F(QueuedTimerTest, AFailedCaptureSaysWhyAndLeavesTheStreamUsable) {
  std::string why;
  int issued = 0;
  const auto failing_run = [&](void*) {
    backend_->fill_bytes(*buffer_, 7);
    return ++issued < 3 ? RunStatus::success() : RunStatus::failure("status 13");
  };
  EXPECT_EQ(backend_->capture_runs(failing_run, 20, why), nullptr);
  EXPECT_EQ(issued, 3);
  EXPECT_EQ(why, "a run failed during capture: status 13");
  // The capture ended: the stream runs and times work again.
  auto timer = backend_->make_timer(TimingMode::Queued);
  timer->begin_iteration();
  backend_->fill_bytes(*buffer_, 8);
  timer->end_iteration();
  EXPECT_EQ(timer->collect_ms().size(), 1u);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
}

}  // namespace
}  // namespace gemmtune
