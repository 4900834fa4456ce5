// StreamHold: keeps a stream from starting what is queued on it until the host releases it.
//
// hold() launches a one-thread kernel that spins on a count in mapped host memory; what the host
// enqueues after it waits in the stream's queue. release() raises the count, and the device runs
// the queue back to back, with no gaps for the host's launch time. That is how the queued timer
// (cuda_timer.hpp) times GEMMs that take the device less time than the host needs to issue them.
//
// The spin ends by itself after `timeout`, so that a held stream never hangs the process: a
// solution that synchronizes inside run(), or a queue longer than the driver will hold, blocks the
// host until then. timed_out() tells, once the stream has been synchronized. The destructor
// releases the stream and waits for it, since the spinning kernel reads the count's memory.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>

namespace gemmtune::cuda {

class StreamHold {
 public:
  StreamHold();
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Enqueues the spinning kernel on `stream` (releasing an earlier hold first).
  void hold(cudaStream_t stream, std::chrono::milliseconds timeout);
  // Releases the last hold (and any earlier one whose kernel still spins).
  void release() noexcept;
  // Whether the last hold ended by its timeout rather than by release(); read it only after the
  // stream has been synchronized.
  bool timed_out() const;

 private:
  // Mapped, pinned: [0] the number of the last hold released, [1] that of the last hold that
  // timed out. Holds are numbered from 1.
  int* host_ = nullptr;
  int* device_ = nullptr;          // the same two ints as the device sees them
  int hold_ = 0;                   // the number of the last hold
  cudaStream_t stream_ = nullptr;  // the held stream until release(): the destructor waits for it
};

}  // namespace gemmtune::cuda
