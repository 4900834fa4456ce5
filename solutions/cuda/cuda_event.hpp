// Event and EventPair: owned CUDA events with timing enabled; an EventPair brackets one timed
// interval on a stream. Destructors never throw.
#pragma once

#include <cuda_runtime_api.h>

namespace gemmtune::cuda {

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream);
  void synchronize() const;

 private:
  cudaEvent_t event_ = nullptr;
};

struct EventPair {
  Event begin;
  Event end;

  // Milliseconds between the two recorded events; both must have completed.
  float elapsed_ms() const;
};

}  // namespace gemmtune::cuda
