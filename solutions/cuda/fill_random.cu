#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "solutions/cuda/fill_random.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

// splitmix64: a full-period mix of (seed, index), cheap and good enough for test data.
__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ float value_at(std::uint64_t seed, std::int64_t i) {
  const std::uint64_t bits = mix(seed ^ mix(static_cast<std::uint64_t>(i)));
  const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
  const float magnitude = 1.0f / 64.0f + unit * (63.0f / 64.0f);
  return (bits & 1u) ? -magnitude : magnitude;
}

template <typename T>
__device__ T convert(float v);
template <> __device__ float convert<float>(float v) { return v; }
template <> __device__ double convert<double>(float v) { return v; }
template <> __device__ __half convert<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }
template <> __device__ __nv_fp8_e5m2 convert<__nv_fp8_e5m2>(float v) { return __nv_fp8_e5m2(v); }

template <typename T>
__global__ void fill_kernel(T* data, std::int64_t count, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = convert<T>(value_at(seed, i));
  }
}

template <typename T>
cudaError_t launch(void* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const cudaError_t pending = cudaPeekAtLastError();
  constexpr int kThreads = 256;
  const std::int64_t wanted = (count + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? wanted : 65536);
  fill_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T*>(data), count, seed);
  return launch_error_since(pending);
}

}  // namespace

cudaError_t launch_fill_random(void* data, FillType type, std::int64_t count, std::uint64_t seed,
                               cudaStream_t stream) {
  switch (type) {
    case FillType::F32: return launch<float>(data, count, seed, stream);
    case FillType::F64: return launch<double>(data, count, seed, stream);
    case FillType::F16: return launch<__half>(data, count, seed, stream);
    case FillType::BF16: return launch<__nv_bfloat16>(data, count, seed, stream);
    case FillType::E4M3: return launch<__nv_fp8_e4m3>(data, count, seed, stream);
    case FillType::E5M2: return launch<__nv_fp8_e5m2>(data, count, seed, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace gemmtune::cuda
