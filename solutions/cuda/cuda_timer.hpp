// EventTimer: the CUDA IterationTimer. Each iteration is bracketed by its own pair of events
// recorded on the stream; collect_ms waits for the last one and reads every pair. Events are
// pooled, so only the first collection round creates any.
//
// Given a StreamHold (TimingMode::Queued), the first begin_iteration after a collection holds the
// stream, and collect_ms releases it: the iterations between two collections then run back to
// back once all of them are queued, and each pair of events times the device alone. Should a hold
// end by its timeout (the host blocked while the stream was held: a solution that synchronizes, a
// queue deeper than the driver keeps), the timer stops holding, and its later iterations run as
// they are issued; held_timeouts() counts such holds.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "solutions/cuda/cuda_event.hpp"
#include "solutions/cuda/stream_hold.hpp"
#include "tuner/backend.hpp"

namespace gemmtune::cuda {

class EventTimer final : public IterationTimer {
 public:
  // `hold` (may be null: iterations run as issued) must outlive the timer.
  explicit EventTimer(cudaStream_t stream, StreamHold* hold = nullptr)
      : stream_(stream), hold_(hold) {}
  ~EventTimer() override;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void begin_iteration() override;
  void end_iteration() override;
  std::vector<double> collect_ms() override;

  int held_timeouts() const { return held_timeouts_; }

  // Far longer than a chunk takes to issue (kMaxChunk iterations at tens of microseconds each),
  // short enough that a hold that cannot be released costs little.
  static constexpr std::chrono::milliseconds kHoldTimeout{100};

 private:
  cudaStream_t stream_;
  StreamHold* hold_;
  std::vector<EventPair> pairs_;
  std::size_t used_ = 0;  // pairs recorded since the last collect
  bool holding_ = false;  // this timer holds the stream (from a chunk's first iteration)
  int held_timeouts_ = 0;
};

}  // namespace gemmtune::cuda
