#include "bench/llm/burst_timing.hpp"

#include <cuda_runtime_api.h>

#include <chrono>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_event.hpp"

namespace gemmtune::bench {

BurstSample burst_sample(Solution& solution, const Problem& problem, OperandSets& sets,
                         cuda::StreamHold& hold, void* stream_ptr, int iterations) {
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  BurstSample out;
  cuda::EventPair pair;
  {
    hold.hold(stream, std::chrono::milliseconds(500));
    ReleaseOnExit release{hold};
    pair.begin.record(stream);
    for (int i = 0; i < iterations && out.error.empty(); ++i) {
      const RunStatus status = solution.run(problem, sets.next(), stream);
      if (!status) out.error = status.error;
    }
    pair.end.record(stream);
  }
  GEMMTUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (out.error.empty() && hold.timed_out()) out.error = "the stream was held until the timeout";
  if (out.error.empty()) out.ms_per_iteration = pair.elapsed_ms() / iterations;
  return out;
}

}  // namespace gemmtune::bench
