// EventTimer: the CUDA IterationTimer. Each iteration is bracketed by its own pair of events
// recorded on the stream; collect_ms waits for the last one and reads every pair. Events are
// pooled, so only the first collection round creates any.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "solutions/cuda/cuda_event.hpp"
#include "tuner/backend.hpp"

namespace gemmtune::cuda {

class EventTimer final : public IterationTimer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {}

  void begin_iteration() override;
  void end_iteration() override;
  std::vector<double> collect_ms() override;

 private:
  cudaStream_t stream_;
  std::vector<EventPair> pairs_;
  std::size_t used_ = 0;  // pairs recorded since the last collect
};

}  // namespace gemmtune::cuda
