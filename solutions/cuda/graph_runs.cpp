#include "solutions/cuda/graph_runs.hpp"

#include <chrono>
#include <exception>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_event.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cuda {
namespace {

// Ends the stream's capture however the capturing loop ends, so that a failed run never leaves
// the stream capturing (every later call on it would fail).
class CaptureScope {
 public:
  explicit CaptureScope(cudaStream_t stream) : stream_(stream) {
    // Relaxed: a solution's first-call set-up (a function attribute, an allocation) is not an
    // error here, only work queued on the stream is captured.
    GEMMTUNE_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  }
  ~CaptureScope() {
    if (!ended_) {
      cudaGraph_t discarded = nullptr;
      (void)cudaStreamEndCapture(stream_, &discarded);
      if (discarded != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(discarded));
      (void)cudaGetLastError();  // an invalidated capture's error is not sticky; it is reported
    }
  }
  CaptureScope(const CaptureScope&) = delete;
  CaptureScope& operator=(const CaptureScope&) = delete;

  cudaError_t end(cudaGraph_t* graph) {
    ended_ = true;
    return cudaStreamEndCapture(stream_, graph);
  }

 private:
  cudaStream_t stream_;
  bool ended_ = false;
};

// Releases a held stream however the queueing behind it ends.
class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(StreamHold& hold) : hold_(hold) {}
  ~ReleaseOnExit() { hold_.release(); }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

 private:
  StreamHold& hold_;
};

}  // namespace

GraphRuns::GraphRuns(const std::function<RunStatus(void* stream)>& issue, int runs,
                     cudaStream_t stream, StreamHold& hold)
    : stream_(stream), hold_(hold), runs_(runs) {
  try {
    CaptureScope scope(stream);
    for (int i = 0; i < runs; ++i) {
      const RunStatus status = issue(stream);
      if (!status) {
        error_ = "a run failed during capture: " + status.error;
        return;
      }
    }
    if (const cudaError_t e = scope.end(&graph_); e != cudaSuccess) {
      graph_ = nullptr;
      error_ = call_failed_message("cudaStreamEndCapture", e);
      (void)cudaGetLastError();
      return;
    }
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception& x) {
    error_ = x.what();
    return;
  }
  if (const cudaError_t e = cudaGraphInstantiate(&exec_, graph_, 0); e != cudaSuccess) {
    exec_ = nullptr;
    error_ = call_failed_message("cudaGraphInstantiate", e);
    (void)cudaGetLastError();
    return;
  }
  // The first launch uploads the graph to the device: not a sample.
  cudaError_t e = cudaGraphLaunch(exec_, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    // A sticky error ends the run (DeviceError); anything else only this capture's samples.
    GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec_));
    exec_ = nullptr;
    if (is_sticky(e)) {
      GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph_));
      graph_ = nullptr;
      throw_cuda_error(__FILE__, __LINE__, "cudaGraphLaunch", e);
    }
    error_ = call_failed_message("the graph's first replay", e);
    (void)cudaGetLastError();
  }
}

GraphRuns::~GraphRuns() {
  if (exec_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec_));
  if (graph_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph_));
}

std::optional<double> GraphRuns::replay_ms_per_run() {
  GEMMTUNE_EXPECT(ok(), "replay of a graph that was not captured");
  EventPair pair;
  {
    hold_.hold(stream_, std::chrono::milliseconds(500));
    ReleaseOnExit release(hold_);
    pair.begin.record(stream_);
    GEMMTUNE_CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
    pair.end.record(stream_);
  }
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (hold_.timed_out()) return std::nullopt;
  return pair.elapsed_ms() / runs_;
}

}  // namespace gemmtune::cuda
