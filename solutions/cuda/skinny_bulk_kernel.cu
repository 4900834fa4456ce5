#include "solutions/cuda/skinny_bulk_kernel.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_tc_kernel.hpp"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

// cuTensorMapEncodeTiled, from the driver the runtime loaded (no link against libcuda).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                         cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      function = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

// A map over `rows` rows of k elements (row stride `ld`, batch stride `stride`), read in boxes
// of 64 k × box_rows rows with the 128-byte swizzle; false where the TMA unit cannot address it.
template <typename T>
bool encode_rows(CUtensorMap& map, const void* base, int k, int rows, int batch, std::int64_t ld,
                 std::int64_t stride, int box_rows) {
  const auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  constexpr auto kType = std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batch)};
  // A batch of one still needs a valid stride for its (unused) third dimension.
  const std::int64_t batch_stride = batch > 1 ? stride : ld * rows;
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

constexpr int kMaxDevices = 64;

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
  if (e != cudaSuccess) return e;
  if (per_sm * sms == 0) return cudaErrorInvalidConfiguration;
  blocks = per_sm * sms;
  cached[device].store(blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

template <typename T, int MTiles, int NTiles, int Warps, int KBoxes, int Stages>
cudaError_t launch_shape(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  constexpr int kThreads = (Warps + 1) * 32;
  constexpr int kBytes = bulk_kernel_shared_bytes<MTiles, NTiles, Warps, KBoxes, Stages>();
  static_assert(kBytes == skinny_bulk_shared_bytes({MTiles, Warps, KBoxes, Stages}, 8 * NTiles));
  if constexpr (kBytes > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;
  } else {
    constexpr auto kKernel = skinny_bulk_kernel<T, MTiles, NTiles, Warps, KBoxes, Stages>;
    CUtensorMap map_a, map_b;
    if (!encode_rows<T>(map_a, args.a, args.k, args.m, args.batch, args.lda, args.stride_a,
                        16 * MTiles) ||
        !encode_rows<T>(map_b, args.b, args.k, args.n, args.batch, args.ldb, args.stride_b,
                        8 * NTiles)) {
      unaddressable = true;
      return cudaSuccess;
    }
    int device = 0, resident = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = resident_blocks<kKernel, kThreads, kBytes>(device, resident);
    if (e != cudaSuccess) return e;
    // The kernel counts tiles in int.
    const std::int64_t tiles =
        static_cast<std::int64_t>((args.m + 16 * MTiles - 1) / (16 * MTiles)) * args.batch;
    if (tiles > INT_MAX) return cudaErrorInvalidValue;
    const int blocks = tiles < resident ? static_cast<int>(tiles) : resident;
    kKernel<<<blocks, kThreads, kBytes, stream>>>(args, map_a, map_b);
    return cudaGetLastError();
  }
}

template <typename T, int MTiles, int Warps, int KBoxes, int Stages>
cudaError_t launch_config(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  if (args.n <= 8)
    return launch_shape<T, MTiles, 1, Warps, KBoxes, Stages>(args, stream, unaddressable);
  if (args.n <= 16)
    return launch_shape<T, MTiles, 2, Warps, KBoxes, Stages>(args, stream, unaddressable);
  if (args.n <= 32)
    return launch_shape<T, MTiles, 4, Warps, KBoxes, Stages>(args, stream, unaddressable);
  return launch_shape<T, MTiles, 8, Warps, KBoxes, Stages>(args, stream, unaddressable);
}

template <typename T>
cudaError_t launch_typed(SkinnyBulkConfig c, const SkinnyArgs& args, cudaStream_t stream,
                         bool& unaddressable) {
  const auto is = [&](SkinnyBulkConfig k) {
    return c.m_tiles == k.m_tiles && c.warps == k.warps && c.k_boxes == k.k_boxes &&
           c.stages == k.stages;
  };
  static_assert(std::size(kSkinnyBulkConfigs) == 8, "a configuration is not dispatched");
  if (is(kSkinnyBulkConfigs[0])) return launch_config<T, 1, 4, 4, 8>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[1])) return launch_config<T, 1, 4, 2, 12>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[2])) return launch_config<T, 1, 2, 4, 6>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[3])) return launch_config<T, 1, 4, 4, 4>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[4])) return launch_config<T, 2, 4, 2, 12>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[5])) return launch_config<T, 4, 4, 2, 8>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[6])) return launch_config<T, 2, 4, 1, 16>(args, stream, unaddressable);
  if (is(kSkinnyBulkConfigs[7])) return launch_config<T, 4, 4, 1, 12>(args, stream, unaddressable);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skinny_bulk_tn(SkinnyType type, SkinnyBulkConfig config, const SkinnyArgs& args,
                                  cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.n > kSkinnyBulkMaxN || args.k <= 0 || args.batch <= 0 ||
      skinny_bulk_shared_bytes(config, args.n) > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;
  }
  bool unaddressable = false;
  cudaError_t status = cudaErrorInvalidValue;
  switch (type) {
    case SkinnyType::BFloat16:
      status = launch_typed<__nv_bfloat16>(config, args, stream, unaddressable);
      break;
    case SkinnyType::Float16:
      status = launch_typed<__half>(config, args, stream, unaddressable);
      break;
    case SkinnyType::Float32:
      return cudaErrorInvalidValue;
  }
  // A layout the TMA unit cannot address (a pointer or stride off 16 bytes): the register-load
  // kernel runs it.
  if (unaddressable) return launch_skinny_tc_tn(type, SkinnyTcConfig{1, 8}, args, stream);
  return status;
}

}  // namespace gemmtune::cuda
