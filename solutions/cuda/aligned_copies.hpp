// A call run on aligned copies of its operands: `Default`'s first way round a cuBLASLt algorithm
// that turns down a call's operands for their alignment (default_with_fallback.hpp).
//
// cuBLASLt's fp8 algorithms want A, B, C and the scales on 16 bytes; an application's operands
// may be slices at any byte. Copying the operands that are not on 16 bytes to fresh buffers
// (stream-ordered: cudaMallocAsync, cudaMemcpy2DAsync, cudaFreeAsync, which a graph captures as
// its own allocation and free; gpu_graph_capture_test) and running the same algorithm there costs a read and
// a write of those operands: 1.2–3.4× the aligned call's time on an H100, where gemmtune's plain
// fp8 kernel on CUDA cores took 17–256× (bench/fallback/fp8_fallback_main.cpp). C is
// copied in (where beta reads it) and back, column by column, so that nothing between its columns
// (ldc > m) is touched. Where no memory can be had, or the algorithm refuses the copies too,
// `last_resort` runs the call as it is.
#pragma once

#include <memory>

#include "tuner/solution.hpp"

namespace gemmtune::cuda {

std::unique_ptr<Solution> make_aligned_copies(const Problem& problem,
                                              std::unique_ptr<Solution> solution,
                                              std::unique_ptr<Solution> last_resort);

}  // namespace gemmtune::cuda
