#include "solutions/cuda/skinny_bulk_kernel.hpp"

#include <iterator>

#include "solutions/cuda/skinny_bulk_kernel.cuh"
#include "solutions/cuda/skinny_tma_host.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

template <typename T, int MTiles, int NTiles, int Warps, int KBoxes, int Stages,
          SkinnyPrefetch Prefetch>
cudaError_t launch_shape(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  constexpr int kThreads = kBulkThreads<Warps>;
  constexpr int kBytes = bulk_kernel_shared_bytes<MTiles, NTiles, Warps, KBoxes, Stages>();
  static_assert(kBytes == skinny_bulk_shared_bytes({MTiles, Warps, KBoxes, Stages}, 8 * NTiles));
  if constexpr (kBytes > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;
  } else {
    return launch_persistent<T,
                             skinny_bulk_kernel<T, MTiles, NTiles, Warps, KBoxes, Stages, Prefetch>,
                             kThreads, kBytes>(args, stream, 16 * MTiles, 8 * NTiles,
                                               unaddressable);
  }
}

template <typename T, int MTiles, int Warps, int KBoxes, int Stages, SkinnyPrefetch Prefetch>
cudaError_t launch_columns(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  if (args.n <= 8) {
    return launch_shape<T, MTiles, 1, Warps, KBoxes, Stages, Prefetch>(args, stream, unaddressable);
  }
  if (args.n <= 16) {
    return launch_shape<T, MTiles, 2, Warps, KBoxes, Stages, Prefetch>(args, stream, unaddressable);
  }
  if (args.n <= 32) {
    return launch_shape<T, MTiles, 4, Warps, KBoxes, Stages, Prefetch>(args, stream, unaddressable);
  }
  return launch_shape<T, MTiles, 8, Warps, KBoxes, Stages, Prefetch>(args, stream, unaddressable);
}

template <typename T, int MTiles, int Warps, int KBoxes, int Stages>
cudaError_t launch_config(SkinnyPrefetch prefetch, const SkinnyArgs& args, cudaStream_t stream,
                          bool& unaddressable) {
  return with_prefetch(prefetch, [&](auto p) {
    return launch_columns<T, MTiles, Warps, KBoxes, Stages, decltype(p)::value>(args, stream,
                                                                                unaddressable);
  });
}

template <typename T>
cudaError_t launch_typed(SkinnyBulkConfig c, const SkinnyArgs& args, cudaStream_t stream,
                         bool& unaddressable) {
  static_assert(std::size(kSkinnyBulkConfigs) == 9, "a configuration is not dispatched");
  const SkinnyPrefetch p = c.prefetch;
  c.prefetch = SkinnyPrefetch::early;  // as the list has them
  const SkinnyBulkConfig* k = kSkinnyBulkConfigs;
  auto& u = unaddressable;
  if (c == k[0]) return launch_config<T, 1, 4, 4, 8>(p, args, stream, u);
  if (c == k[1]) return launch_config<T, 1, 4, 2, 12>(p, args, stream, u);
  if (c == k[2]) return launch_config<T, 1, 2, 4, 6>(p, args, stream, u);
  if (c == k[3]) return launch_config<T, 1, 4, 4, 4>(p, args, stream, u);
  if (c == k[4]) return launch_config<T, 2, 4, 2, 12>(p, args, stream, u);
  if (c == k[5]) return launch_config<T, 4, 4, 2, 8>(p, args, stream, u);
  if (c == k[6]) return launch_config<T, 2, 4, 1, 16>(p, args, stream, u);
  if (c == k[7]) return launch_config<T, 4, 4, 1, 12>(p, args, stream, u);
  if (c == k[8]) return launch_config<T, 1, 2, 8, 6>(p, args, stream, u);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skinny_bulk_tn(SkinnyType type, SkinnyBulkConfig config, const SkinnyArgs& args,
                                  cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.n > kSkinnyBulkMaxN || args.k <= 0 || args.batch <= 0 ||
      skinny_bulk_shared_bytes(config, args.n) > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;
  }
  return launch_by_type(type, args, stream, [&](auto element, bool& unaddressable) {
    return launch_typed<decltype(element)>(config, args, stream, unaddressable);
  });
}

}  // namespace gemmtune::cuda
