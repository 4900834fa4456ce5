#include "solutions/cuda/cuda_timer.hpp"

#include "solutions/cuda/cuda_device.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cuda {

EventTimer::~EventTimer() {
  // An iteration that threw leaves the stream held; what was queued behind it runs now.
  if (holding_) hold_->release();
}

void EventTimer::begin_iteration() {
  if (used_ == pairs_.size()) {
    // Events belong to the device that is current when they are made: the stream's.
    const ScopedDevice device(device_of(stream_));
    pairs_.emplace_back();
  }
  if (used_ == 0 && hold_ != nullptr) {
    const ScopedDevice device(device_of(stream_));  // the spinning kernel runs on the stream's
    hold_->hold(stream_, kHoldTimeout);
    holding_ = true;
  }
  pairs_[used_].begin.record(stream_);
}

void EventTimer::end_iteration() {
  GEMMTUNE_EXPECT(used_ < pairs_.size(), "end_iteration without begin_iteration");
  pairs_[used_].end.record(stream_);
  ++used_;
}

std::vector<double> EventTimer::collect_ms() {
  std::vector<double> samples;
  const bool held = holding_;
  if (holding_) hold_->release();
  holding_ = false;
  if (used_ == 0) return samples;
  pairs_[used_ - 1].end.synchronize();
  if (held && hold_->timed_out()) {
    ++held_timeouts_;
    hold_ = nullptr;
  }
  samples.reserve(used_);
  for (std::size_t i = 0; i < used_; ++i) samples.push_back(pairs_[i].elapsed_ms());
  used_ = 0;
  return samples;
}

}  // namespace gemmtune::cuda
