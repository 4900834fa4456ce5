#include "solutions/cuda/skinny_gemm_kernel.hpp"

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/skinny_common.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

// 16 bytes as floats. `Streaming` marks data read once (A): it should not push B, which every
// block rereads, out of the caches.
template <bool Streaming>
__device__ __forceinline__ uint4 load16(const void* p) {
  const auto* q = static_cast<const uint4*>(p);
  if constexpr (Streaming) {
    return __ldcs(q);
  } else {
    return __ldg(q);
  }
}

template <bool Streaming>
__device__ __forceinline__ void load_vector(const __nv_bfloat16* p, float (&out)[8]) {
  const uint4 raw = load16<Streaming>(p);
  const auto* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(pairs[i]);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}
template <bool Streaming>
__device__ __forceinline__ void load_vector(const __half* p, float (&out)[8]) {
  const uint4 raw = load16<Streaming>(p);
  const auto* pairs = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __half22float2(pairs[i]);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}
template <bool Streaming>
__device__ __forceinline__ void load_vector(const float* p, float (&out)[4]) {
  const uint4 raw = load16<Streaming>(p);
  out[0] = __uint_as_float(raw.x);
  out[1] = __uint_as_float(raw.y);
  out[2] = __uint_as_float(raw.z);
  out[3] = __uint_as_float(raw.w);
}
template <bool Streaming, typename T>
__device__ __forceinline__ void load_vector(const T* p, float (&out)[1]) {
  out[0] = to_float(*p);
}

// One block: `Rows` consecutive rows of Aᵀ (columns of the stored A) against all n columns of B;
// its threads split k in strides of Threads·V elements, then reduce through shuffles and shared
// memory. Rows past m read row m−1 (valid memory) and are not written.
template <typename T, int Rows, int MaxN, int Threads, bool Vector>
__global__ void __launch_bounds__(Threads) skinny_tn_kernel(SkinnyArgs args) {
  constexpr int V = Vector ? kVectorElements<T> : 1;
  constexpr int kWarps = Threads / 32;
  const auto batch = static_cast<std::int64_t>(blockIdx.y);
  const T* a = static_cast<const T*>(args.a) + batch * args.stride_a;
  const T* b = static_cast<const T*>(args.b) + batch * args.stride_b;
  T* c = static_cast<T*>(args.c) + batch * args.stride_c;
  const int row0 = static_cast<int>(blockIdx.x) * Rows;

  const T* a_rows[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    a_rows[r] = a + static_cast<std::int64_t>(min(row0 + r, args.m - 1)) * args.lda;
  }
  float acc[Rows][MaxN];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int j = 0; j < MaxN; ++j) acc[r][j] = 0.f;
  }
  wait_for_previous_kernel();
  allow_next_kernel();

#pragma unroll 2
  for (int kk = static_cast<int>(threadIdx.x) * V; kk < args.k; kk += Threads * V) {
    float av[Rows][V];
#pragma unroll
    for (int r = 0; r < Rows; ++r) load_vector<true>(a_rows[r] + kk, av[r]);
#pragma unroll
    for (int j = 0; j < MaxN; ++j) {
      if (j < args.n) {
        float bv[V];
        load_vector<false>(b + static_cast<std::int64_t>(j) * args.ldb + kk, bv);
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
#pragma unroll
          for (int v = 0; v < V; ++v) acc[r][j] = fmaf(av[r][v], bv[v], acc[r][j]);
        }
      }
    }
  }

  __shared__ float partial[kWarps][Rows * MaxN];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int warp = static_cast<int>(threadIdx.x) >> 5;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int j = 0; j < MaxN; ++j) {
      float v = acc[r][j];
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
      if (lane == 0) partial[warp][r * MaxN + j] = v;
    }
  }
  __syncthreads();
  for (int index = static_cast<int>(threadIdx.x); index < Rows * MaxN; index += Threads) {
    const int r = index / MaxN;
    const int j = index % MaxN;
    const int row = row0 + r;
    if (row >= args.m || j >= args.n) continue;
    float sum = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) sum += partial[w][index];
    T* out = c + row + static_cast<std::int64_t>(j) * args.ldc;
    float value = scaled_product(args.alpha, sum);
    // beta = 0 must not read C: it may hold NaN (BLAS semantics).
    if (args.beta != 0.f) value = fmaf(args.beta, to_float(*out), value);
    *out = from_float<T>(value);
  }
}

template <typename T, int Rows, int Threads, bool Vector>
cudaError_t launch_for_n(const SkinnyArgs& args, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((args.m + Rows - 1) / Rows),
                  static_cast<unsigned>(args.batch));
  const auto launch = [&](auto kernel) {
    return launch_dependent(kernel, grid, dim3(Threads), 0, stream, args);
  };
  if (args.n <= 1) return launch(skinny_tn_kernel<T, Rows, 1, Threads, Vector>);
  if (args.n <= 2) return launch(skinny_tn_kernel<T, Rows, 2, Threads, Vector>);
  if (args.n <= 4) return launch(skinny_tn_kernel<T, Rows, 4, Threads, Vector>);
  if (args.n <= 8) return launch(skinny_tn_kernel<T, Rows, 8, Threads, Vector>);
  if (args.n <= kSkinnyMaxN) return launch(skinny_tn_kernel<T, Rows, kSkinnyMaxN, Threads, Vector>);
  return cudaErrorInvalidValue;
}

template <typename T, int Rows, int Threads>
cudaError_t launch_config(const SkinnyArgs& args, cudaStream_t stream) {
  return vector_loads_allowed<T>(args) ? launch_for_n<T, Rows, Threads, true>(args, stream)
                                       : launch_for_n<T, Rows, Threads, false>(args, stream);
}

template <typename T>
cudaError_t launch_typed(SkinnyConfig config, const SkinnyArgs& args, cudaStream_t stream) {
  switch (config.rows * 1000 + config.threads) {
    case 1128:
      return launch_config<T, 1, 128>(args, stream);
    case 1256:
      return launch_config<T, 1, 256>(args, stream);
    case 2128:
      return launch_config<T, 2, 128>(args, stream);
    case 2256:
      return launch_config<T, 2, 256>(args, stream);
    case 4128:
      return launch_config<T, 4, 128>(args, stream);
    case 4256:
      return launch_config<T, 4, 256>(args, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_skinny_tn(SkinnyType type, SkinnyConfig config, const SkinnyArgs& args,
                             cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.batch <= 0 || args.batch > kSkinnyMaxBatch) {
    return cudaErrorInvalidValue;
  }
  switch (type) {
    case SkinnyType::BFloat16:
      return launch_typed<__nv_bfloat16>(config, args, stream);
    case SkinnyType::Float16:
      return launch_typed<__half>(config, args, stream);
    case SkinnyType::Float32:
      return launch_typed<float>(config, args, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace gemmtune::cuda
