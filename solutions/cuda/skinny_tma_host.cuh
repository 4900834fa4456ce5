// Host-side helpers of the kernels that read their operands through the TMA unit
// (skinny_bulk_kernel.cu, skinny_wgmma_kernel.cu): tensor maps and resident blocks. For .cu files
// only.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/dependent_launch.cuh"
#include "solutions/cuda/pointer_alignment.hpp"
#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_tc_kernel.hpp"

namespace gemmtune::cuda::skinny {

// cuTensorMapEncodeTiled, from the driver the runtime loaded (no link against libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();  // not sticky; left set, it would fail the next launch's check
      function = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

// What cuTensorMapEncodeTiled documents for a map without interleave: the base address on 16
// bytes, every stride a multiple of 16 bytes and below 2^40. Checked before the call, so that an
// operand the TMA unit cannot address is told apart without a failing driver call, which
// compute-sanitizer (and any tool that watches API errors) would report from the application.
inline bool tma_addressable(const void* base, std::int64_t ld_bytes, std::int64_t stride_bytes) {
  constexpr std::int64_t kMaxStride = std::int64_t{1} << 40;
  const auto fits = [&](std::int64_t bytes) {
    return bytes >= 0 && bytes % 16 == 0 && bytes < kMaxStride;
  };
  return alignment_of(base) >= 16 && fits(ld_bytes) && fits(stride_bytes);
}

// A map over `rows` rows of k elements (row stride `ld`, batch stride `stride`), read in boxes
// of 64 k × box_rows rows with the 128-byte swizzle; false where the TMA unit cannot address it.
template <typename T>
inline bool encode_rows(CUtensorMap& map, const void* base, int k, int rows, int batch,
                        std::int64_t ld, std::int64_t stride, int box_rows) {
  const auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  constexpr auto kType = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batch)};
  // A batch of one still needs a valid stride for its (unused) third dimension.
  const std::int64_t batch_stride = batch > 1 ? stride : ld * rows;
  if (!tma_addressable(base, ld * std::int64_t{sizeof(T)},
                       batch_stride * std::int64_t{sizeof(T)})) {
    return false;
  }
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * sizeof(T),
                                 static_cast<cuuint64_t>(batch_stride) * sizeof(T)};
  const cuuint32_t box[3] = {kBoxK, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(&map, kType, 3, const_cast<void*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                // 128-byte promotion measured 0–3% faster than 256 on an H200 (and none about
                // the same as 128): a box row is 128 bytes.
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

inline constexpr int kMaxDevices = 64;

// Blocks of the kernel resident on the whole device, after raising its shared-memory limit:
// once per kernel and device, since the launches run inside timing loops.
template <auto Kernel, int Threads, int Bytes>
cudaError_t resident_blocks(int device, int& blocks) {
  static std::atomic<int> cached[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  blocks = cached[device].load(std::memory_order_relaxed);
  if (blocks > 0) return cudaSuccess;
  int per_sm = 0, sms = 0;
  cudaError_t e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  if (e == cudaSuccess) {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, Threads, Bytes);
  }
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // returned as the launch's status: not left for the next check
    return e;
  }
  if (per_sm * sms == 0) return cudaErrorInvalidConfiguration;
  blocks = per_sm * sms;
  cached[device].store(blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

// Launches a persistent kernel over tiles of a_rows rows of Aᵀ, reading A and B in boxes of
// a_rows and b_rows rows: as many blocks as are resident, or as there are tiles.
template <typename T, auto Kernel, int Threads, int Bytes>
cudaError_t launch_persistent(const SkinnyArgs& args, cudaStream_t stream, int a_rows, int b_rows,
                              bool& unaddressable) {
  CUtensorMap map_a, map_b;
  if (!encode_rows<T>(map_a, args.a, args.k, args.m, args.batch, args.lda, args.stride_a, a_rows) ||
      !encode_rows<T>(map_b, args.b, args.k, args.n, args.batch, args.ldb, args.stride_b, b_rows)) {
    unaddressable = true;
    return cudaSuccess;
  }
  int device = 0, resident = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = resident_blocks<Kernel, Threads, Bytes>(device, resident);
  if (e != cudaSuccess) return e;
  const std::int64_t tiles = static_cast<std::int64_t>((args.m + a_rows - 1) / a_rows) * args.batch;
  if (tiles > INT_MAX) return cudaErrorInvalidValue;  // the kernels count tiles in int
  const int blocks = tiles < resident ? static_cast<int>(tiles) : resident;
  return launch_dependent(Kernel, dim3(blocks), dim3(Threads), Bytes, stream, args, map_a, map_b);
}

// Calls launch(std::integral_constant<SkinnyPrefetch, P>{}) with P the run-time `prefetch`: a
// TMA kernel's dispatch instantiates each configuration with both prefetches of A.
template <typename Launch>
cudaError_t with_prefetch(SkinnyPrefetch prefetch, Launch&& launch) {
  if (prefetch == SkinnyPrefetch::late) {
    return launch(std::integral_constant<SkinnyPrefetch, SkinnyPrefetch::late>{});
  }
  return launch(std::integral_constant<SkinnyPrefetch, SkinnyPrefetch::early>{});
}

// An entry point's dispatch on the element type: `typed(element, unaddressable)` launches with
// element's type (__nv_bfloat16 or __half). A layout the TMA unit cannot address (a pointer or
// stride off 16 bytes) runs on the register-load tensor-core kernel instead.
template <typename Typed>
cudaError_t launch_by_type(SkinnyType type, const SkinnyArgs& args, cudaStream_t stream,
                           Typed&& typed) {
  bool unaddressable = false;
  cudaError_t status = cudaErrorInvalidValue;
  switch (type) {
    case SkinnyType::BFloat16:
      status = typed(__nv_bfloat16{}, unaddressable);
      break;
    case SkinnyType::Float16:
      status = typed(__half{}, unaddressable);
      break;
    case SkinnyType::Float32:
      return cudaErrorInvalidValue;
  }
  if (unaddressable) return launch_skinny_tc_tn(type, SkinnyTcConfig{1, 8}, args, stream);
  return status;
}

}  // namespace gemmtune::cuda::skinny
