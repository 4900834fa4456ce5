// A solution's time per iteration when its iterations are replayed from a CUDA graph: the device
// time a program that captures its GEMMs into a graph sees, as LLM servers (vLLM, SGLang,
// TensorRT-LLM) run their decode steps.
//
// `iterations` runs on the rotating operand sets are captured once into a graph; a sample is one
// replay between a pair of events, divided by `iterations`, queued behind a held stream
// (cuda::StreamHold) so that the host's time to launch the graph is not in it. Against the burst
// time (burst_timing.hpp), which still has the device take each launch from the stream's queue, a
// replay has neither per-iteration events nor launch gaps: what is left is the kernels' own time
// and what the graph puts between its nodes.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>
#include <string>

#include "solutions/cuda/stream_hold.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/problem.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::bench {

class CapturedIterations {
 public:
  // Captures `iterations` runs of `solution` on `stream` (sets.next() for each) and instantiates
  // the graph. On failure ok() is false and error() says why; the stream is left out of capture
  // either way. A sticky CUDA error still throws DeviceError.
  CapturedIterations(Solution& solution, const Problem& problem, OperandSets& sets,
                     cudaStream_t stream, int iterations = 20);
  ~CapturedIterations();
  CapturedIterations(const CapturedIterations&) = delete;
  CapturedIterations& operator=(const CapturedIterations&) = delete;

  bool ok() const { return exec_ != nullptr; }
  const std::string& error() const { return error_; }

  // Replays the graph once between a pair of events, queued behind `hold`, and waits for it: ms
  // per iteration, or nullopt if the hold ran out before the replay was queued.
  std::optional<double> replay_ms_per_iteration(cuda::StreamHold& hold, cudaStream_t stream) const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int iterations_ = 0;
  std::string error_;
};

}  // namespace gemmtune::bench
