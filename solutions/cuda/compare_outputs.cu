#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <type_traits>

#include "solutions/cuda/compare_outputs.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

template <typename T>
__device__ double widen(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
__device__ double widen<double>(double v) {
  return v;
}
template <>
__device__ double widen<float>(float v) {
  return v;
}

__device__ std::int64_t offset_of(const OutputLayout& l, std::int64_t e) {
  const std::int64_t i = e % l.m;
  const std::int64_t rest = e / l.m;
  const std::int64_t j = rest % l.n;
  const std::int64_t b = rest / l.n;
  return b * l.batch_stride + j * l.ldc + i;
}

// |c − ref| / allowed, as the host check defines it (infinite for NaN or a zero allowance).
__device__ double ratio_of(double ref, double got, double atol, double rtol, bool* ok) {
  const double error = fabs(got - ref);
  const double allowed = atol + rtol * fabs(ref);
  *ok = error <= allowed;  // false when either is NaN
  if (!*ok && error != error) return __longlong_as_double(0x7FF0000000000000ll);
  if (allowed > 0) return error / allowed;
  return error > 0 ? __longlong_as_double(0x7FF0000000000000ll) : 0.0;
}

std::int64_t elements(const OutputLayout& l) {
  return l.m * l.n * l.batch;
}

unsigned blocks_for(std::int64_t count) {
  const std::int64_t wanted = (count + 255) / 256;
  return static_cast<unsigned>(wanted < 4096 ? (wanted > 0 ? wanted : 1) : 4096);
}

template <typename T>
__global__ void sum_squares_kernel(const T* out, OutputLayout l, CompareTotals* totals) {
  double sum = 0;
  unsigned long long finite = 0;
  const std::int64_t count = l.m * l.n * l.batch;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < count;
       e += stride) {
    const double v = widen(out[offset_of(l, e)]);
    if (isfinite(v)) {
      sum += v * v;
      ++finite;
    }
  }
  atomicAdd(&totals->sum_squares, sum);
  atomicAdd(&totals->finite_count, finite);
}

template <typename T>
__global__ void compare_kernel(const T* ref, const T* got, OutputLayout l, double atol, double rtol,
                               CompareTotals* totals) {
  unsigned long long mismatches = 0, worst = 0;
  const std::int64_t count = l.m * l.n * l.batch;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < count;
       e += stride) {
    const std::int64_t at = offset_of(l, e);
    bool ok = true;
    const double ratio = ratio_of(widen(ref[at]), widen(got[at]), atol, rtol, &ok);
    if (!ok) ++mismatches;
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(ratio));
    if (bits > worst) worst = bits;
  }
  if (mismatches) atomicAdd(&totals->mismatches, mismatches);
  atomicMax(&totals->worst_ratio_bits, worst);
}

template <typename T>
__global__ void find_worst_kernel(const T* ref, const T* got, OutputLayout l, double atol,
                                  double rtol, CompareTotals* totals) {
  const unsigned long long target = totals->worst_ratio_bits;
  const std::int64_t count = l.m * l.n * l.batch;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < count;
       e += stride) {
    const std::int64_t at = offset_of(l, e);
    bool ok = true;
    const double ratio = ratio_of(widen(ref[at]), widen(got[at]), atol, rtol, &ok);
    if (static_cast<unsigned long long>(__double_as_longlong(ratio)) == target) {
      atomicMin(&totals->worst_element, static_cast<unsigned long long>(e));
      return;  // later elements of this thread are further in layout order
    }
  }
}

// Calls `body.template operator()<T>()` with the element type of `type`.
template <typename Body>
cudaError_t dispatch(FillType type, Body&& body) {
  switch (type) {
    case FillType::F32:
      return body(static_cast<const float*>(nullptr));
    case FillType::F64:
      return body(static_cast<const double*>(nullptr));
    case FillType::F16:
      return body(static_cast<const __half*>(nullptr));
    case FillType::BF16:
      return body(static_cast<const __nv_bfloat16*>(nullptr));
    case FillType::E4M3:
      return body(static_cast<const __nv_fp8_e4m3*>(nullptr));
    case FillType::E5M2:
      return body(static_cast<const __nv_fp8_e5m2*>(nullptr));
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_sum_squares(const void* output, FillType type, const OutputLayout& layout,
                               CompareTotals* totals, cudaStream_t stream) {
  const cudaError_t pending = cudaPeekAtLastError();
  return dispatch(type, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    sum_squares_kernel<T><<<blocks_for(elements(layout)), 256, 0, stream>>>(
        static_cast<const T*>(output), layout, totals);
    return launch_error_since(pending);
  });
}

namespace {

enum class ComparePass { Count, FindWorst };

cudaError_t launch_pass(ComparePass pass, const void* reference, const void* candidate,
                        FillType type, const OutputLayout& layout, double atol, double rtol,
                        CompareTotals* totals, cudaStream_t stream) {
  const cudaError_t pending = cudaPeekAtLastError();
  return dispatch(type, [&](auto tag) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    const auto* ref = static_cast<const T*>(reference);
    const auto* got = static_cast<const T*>(candidate);
    const unsigned blocks = blocks_for(elements(layout));
    if (pass == ComparePass::Count) {
      compare_kernel<T><<<blocks, 256, 0, stream>>>(ref, got, layout, atol, rtol, totals);
    } else {
      find_worst_kernel<T><<<blocks, 256, 0, stream>>>(ref, got, layout, atol, rtol, totals);
    }
    return launch_error_since(pending);
  });
}

}  // namespace

cudaError_t launch_compare(const void* reference, const void* candidate, FillType type,
                           const OutputLayout& layout, double atol, double rtol,
                           CompareTotals* totals, cudaStream_t stream) {
  return launch_pass(ComparePass::Count, reference, candidate, type, layout, atol, rtol, totals,
                     stream);
}

cudaError_t launch_find_worst(const void* reference, const void* candidate, FillType type,
                              const OutputLayout& layout, double atol, double rtol,
                              CompareTotals* totals, cudaStream_t stream) {
  return launch_pass(ComparePass::FindWorst, reference, candidate, type, layout, atol, rtol, totals,
                     stream);
}

}  // namespace gemmtune::cuda
