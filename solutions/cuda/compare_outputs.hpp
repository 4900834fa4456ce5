// The numerical check on the device: compares a candidate's C with the reference C where both
// already are, instead of copying and widening every output on the host (for a 4096-token
// output that copy and comparison cost up to a second per candidate).
//
// Same rule as tuner/numerical_check.cpp: an element passes when |c − ref| ≤ atol + rtol·|ref|,
// NaN never passes, and the worst element is the one with the largest |c − ref| / allowed (the
// first in layout order among equals). Kept free of gemmtune's other headers so that the .cu
// file compiles with nvcc alone.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "solutions/cuda/fill_random.hpp"

namespace gemmtune::cuda {

// The m×n elements of each of `batch` matrices: element (b, i, j) at b·batch_stride + j·ldc + i.
struct OutputLayout {
  std::int64_t m = 0, n = 0, ldc = 0, batch_stride = 0, batch = 1;
};

// Accumulated on the device; zero it before a launch.
struct CompareTotals {
  unsigned long long mismatches;
  unsigned long long worst_ratio_bits;  // a non-negative double's bits order like the double
  unsigned long long worst_element;     // linear element index (i fastest, then j, then b)
  unsigned long long finite_count;
  double sum_squares;
};

// Σ v² and the count of the finite elements of `output`.
cudaError_t launch_sum_squares(const void* output, FillType type, const OutputLayout& layout,
                               CompareTotals* totals, cudaStream_t stream);
// Mismatches and the largest ratio.
cudaError_t launch_compare(const void* reference, const void* candidate, FillType type,
                           const OutputLayout& layout, double atol, double rtol,
                           CompareTotals* totals, cudaStream_t stream);
// The first element whose ratio equals totals->worst_ratio_bits; totals->worst_element must
// start at its largest value.
cudaError_t launch_find_worst(const void* reference, const void* candidate, FillType type,
                              const OutputLayout& layout, double atol, double rtol,
                              CompareTotals* totals, cudaStream_t stream);

}  // namespace gemmtune::cuda
