// GraphRuns: the CUDA backend's CapturedRuns. The runs are captured from the backend's stream into
// a CUDA graph, which each replay launches whole: what a program that captures its GEMMs into a
// graph sees, as LLM servers (vLLM, SGLang, TensorRT-LLM) run their decode steps. Against a burst
// of the same runs issued one by one (Profiler::run_burst), a replay has no launch gaps either:
// what is left is the kernels' own time and what the graph puts between its nodes.
//
// A replay is queued behind a held stream (StreamHold), so that the host's time to launch the
// graph is not in the sample.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>

#include "solutions/cuda/stream_hold.hpp"
#include "tuner/backend.hpp"

namespace gemmtune::cuda {

class GraphRuns final : public CapturedRuns {
 public:
  // Captures `runs` calls of `issue` on `stream`, instantiates the graph and replays it once,
  // untimed (the first launch uploads it). On failure ok() is false and error() says why; the
  // stream is left out of capture either way. A sticky CUDA error throws DeviceError. `hold` must
  // outlive this object.
  GraphRuns(const std::function<RunStatus(void* stream)>& issue, int runs, cudaStream_t stream,
            StreamHold& hold);
  ~GraphRuns() override;
  GraphRuns(const GraphRuns&) = delete;
  GraphRuns& operator=(const GraphRuns&) = delete;

  bool ok() const { return exec_ != nullptr; }
  const std::string& error() const { return error_; }

  std::optional<double> replay_ms_per_run() override;

 private:
  cudaStream_t stream_;
  StreamHold& hold_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int runs_ = 0;
  std::string error_;
};

}  // namespace gemmtune::cuda
