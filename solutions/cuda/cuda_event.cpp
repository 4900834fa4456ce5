#include "solutions/cuda/cuda_event.hpp"

#include <utility>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

Event::Event() {
  GEMMTUNE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDefault));
}

Event::~Event() {
  if (event_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_));
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_));
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) {
  GEMMTUNE_CUDA_CHECK(cudaEventRecord(event_, stream));
}

void Event::synchronize() const {
  GEMMTUNE_CUDA_CHECK(cudaEventSynchronize(event_));
}

float EventPair::elapsed_ms() const {
  float ms = 0.0f;
  GEMMTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, begin.get(), end.get()));
  return ms;
}

}  // namespace gemmtune::cuda
