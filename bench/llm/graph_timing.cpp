#include "bench/llm/graph_timing.hpp"

#include <chrono>
#include <exception>

#include "bench/llm/burst_timing.hpp"
#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_event.hpp"
#include "tuner/error.hpp"

namespace gemmtune::bench {
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

}  // namespace

CapturedIterations::CapturedIterations(Solution& solution, const Problem& problem,
                                       OperandSets& sets, cudaStream_t stream, int iterations)
    : iterations_(iterations) {
  try {
    CaptureScope scope(stream);
    for (int i = 0; i < iterations; ++i) {
      const RunStatus status = solution.run(problem, sets.next(), stream);
      if (!status) {
        error_ = "a run failed during capture: " + status.error;
        return;
      }
    }
    if (const cudaError_t e = scope.end(&graph_); e != cudaSuccess) {
      graph_ = nullptr;
      error_ = cuda::call_failed_message("cudaStreamEndCapture", e);
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
    error_ = cuda::call_failed_message("cudaGraphInstantiate", e);
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
    if (cuda::is_sticky(e)) {
      GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph_));
      graph_ = nullptr;
      cuda::throw_cuda_error(__FILE__, __LINE__, "cudaGraphLaunch", e);
    }
    error_ = cuda::call_failed_message("the graph's first replay", e);
    (void)cudaGetLastError();
  }
}

CapturedIterations::~CapturedIterations() {
  if (exec_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec_));
  if (graph_ != nullptr) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph_));
}

std::optional<double> CapturedIterations::replay_ms_per_iteration(cuda::StreamHold& hold,
                                                                  cudaStream_t stream) const {
  cuda::EventPair pair;
  {
    hold.hold(stream, std::chrono::milliseconds(500));
    ReleaseOnExit release{hold};
    pair.begin.record(stream);
    GEMMTUNE_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
    pair.end.record(stream);
  }
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (hold.timed_out()) return std::nullopt;
  return pair.elapsed_ms() / iterations_;
}

}  // namespace gemmtune::bench
