// Compiled for sm_90a only (its own target in CMakeLists.txt): wgmma has no portable form.
#include "solutions/cuda/skinny_wgmma_kernel.hpp"

#include <iterator>

#include "solutions/cuda/skinny_bulk_kernel.hpp"
#include "solutions/cuda/skinny_tma_host.cuh"
#include "solutions/cuda/skinny_wgmma_kernel.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

template <typename T, int MTiles, int Groups, int KBoxes, int Stages, SkinnyPrefetch Prefetch,
          int BRows>
cudaError_t launch_shape(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  constexpr int kThreads = Groups * 128 + 32;
  constexpr SkinnyWgmmaConfig kConfig{MTiles, Groups, KBoxes, Stages};
  constexpr bool kStaged = skinny_wgmma_stages_tiles(kConfig, BRows);
  constexpr int kBytes = wg_kernel_shared_bytes<MTiles, Groups, KBoxes, Stages, BRows, kStaged>();
  static_assert(kBytes == skinny_wgmma_shared_bytes(kConfig, BRows));
  if constexpr (kBytes > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;  // the ring does not fit at this n
  } else {
    return launch_persistent<
        T, skinny_wgmma_kernel<T, MTiles, Groups, KBoxes, Stages, BRows, kStaged, Prefetch>,
        kThreads, kBytes>(args, stream, 16 * MTiles, BRows, unaddressable);
  }
}

// B's box: n rounded up to 16, 32 or 64 rows.
template <typename T, int MTiles, int Groups, int KBoxes, int Stages, SkinnyPrefetch Prefetch>
cudaError_t launch_columns(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  if (args.n <= 16) {
    return launch_shape<T, MTiles, Groups, KBoxes, Stages, Prefetch, 16>(args, stream,
                                                                         unaddressable);
  }
  if (args.n <= 32) {
    return launch_shape<T, MTiles, Groups, KBoxes, Stages, Prefetch, 32>(args, stream,
                                                                         unaddressable);
  }
  return launch_shape<T, MTiles, Groups, KBoxes, Stages, Prefetch, 64>(args, stream, unaddressable);
}

template <typename T, int MTiles, int Groups, int KBoxes, int Stages>
cudaError_t launch_config(SkinnyPrefetch prefetch, const SkinnyArgs& args, cudaStream_t stream,
                          bool& unaddressable) {
  return with_prefetch(prefetch, [&](auto p) {
    return launch_columns<T, MTiles, Groups, KBoxes, Stages, decltype(p)::value>(args, stream,
                                                                                 unaddressable);
  });
}

template <typename T>
cudaError_t launch_typed(SkinnyWgmmaConfig c, const SkinnyArgs& args, cudaStream_t stream,
                         bool& unaddressable) {
  static_assert(std::size(kSkinnyWgmmaConfigs) == 11, "a configuration is not dispatched");
  const SkinnyPrefetch p = c.prefetch;
  c.prefetch = SkinnyPrefetch::early;  // as the list has them
  const SkinnyWgmmaConfig* k = kSkinnyWgmmaConfigs;
  auto& u = unaddressable;
  if (c == k[0]) return launch_config<T, 2, 2, 2, 8>(p, args, stream, u);
  if (c == k[1]) return launch_config<T, 2, 2, 2, 12>(p, args, stream, u);
  if (c == k[2]) return launch_config<T, 2, 2, 4, 6>(p, args, stream, u);
  if (c == k[3]) return launch_config<T, 4, 1, 2, 6>(p, args, stream, u);
  if (c == k[4]) return launch_config<T, 4, 2, 2, 6>(p, args, stream, u);
  if (c == k[5]) return launch_config<T, 4, 2, 2, 8>(p, args, stream, u);
  if (c == k[6]) return launch_config<T, 8, 1, 1, 8>(p, args, stream, u);
  if (c == k[7]) return launch_config<T, 5, 2, 1, 10>(p, args, stream, u);
  if (c == k[8]) return launch_config<T, 7, 2, 1, 8>(p, args, stream, u);
  if (c == k[9]) return launch_config<T, 14, 1, 1, 6>(p, args, stream, u);
  if (c == k[10]) return launch_config<T, 3, 1, 2, 6>(p, args, stream, u);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skinny_wgmma_tn(SkinnyType type, SkinnyWgmmaConfig config,
                                   const SkinnyArgs& args, cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.n > kSkinnyWgmmaMaxN || args.k <= 0 || args.batch <= 0 ||
      skinny_wgmma_shared_bytes(config, skinny_wgmma_b_rows(args.n)) > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;
  }
  return launch_by_type(type, args, stream, [&](auto element, bool& unaddressable) {
    return launch_typed<decltype(element)>(config, args, stream, unaddressable);
  });
}

}  // namespace gemmtune::cuda
