#include "solutions/cuda/skinny_bulk_kernel.hpp"

#include <climits>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_tc_kernel.hpp"
#include "solutions/cuda/skinny_tma_host.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

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
