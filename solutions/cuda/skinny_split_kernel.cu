// Compiled for sm_90a only (with the warpgroup kernel, CMakeLists.txt): wgmma has no portable
// form.
#include "solutions/cuda/skinny_split_kernel.hpp"

#include <atomic>
#include <iterator>

#include "solutions/cuda/skinny_split_kernel.cuh"
#include "solutions/cuda/skinny_tma_host.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

constexpr int kThreads = kSplitThreads;

// Clusters of the kernel resident on the whole device, after raising its shared-memory limit
// (and, past 8 blocks, allowing its non-portable cluster size): once per kernel and device,
// since the launches run inside timing loops. 0 where not one fits.
template <auto Kernel, int Slices>
cudaError_t resident_clusters(int device, int& clusters) {
  static std::atomic<int> cached[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  clusters = cached[device].load(std::memory_order_relaxed);
  if (clusters > 0) return cudaSuccess;
  cudaError_t e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       kSkinnySplitSharedBytes);
  if (e == cudaSuccess && Slices > 8) {
    e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  }
  if (e != cudaSuccess) return e;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = Slices;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(Slices);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSkinnySplitSharedBytes;
  config.attrs = &attribute;
  config.numAttrs = 1;
  if (Slices > 1) {
    e = cudaOccupancyMaxActiveClusters(&clusters, Kernel, &config);
  } else {
    int per_sm = 0, sms = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, kThreads,
                                                      kSkinnySplitSharedBytes);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    clusters = per_sm * sms;
  }
  if (e != cudaSuccess) return e;
  if (clusters > 0) cached[device].store(clusters, std::memory_order_relaxed);
  return cudaSuccess;
}

template <typename T, int MTiles, int Slices, int KBoxes, int Stages, int BRows>
cudaError_t launch_shape(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  constexpr auto kKernel = skinny_split_kernel<T, MTiles, Slices, KBoxes, Stages, BRows>;
  constexpr int kRowsA = 16 * MTiles;
  CUtensorMap map_a, map_b;
  if (!encode_rows<T>(map_a, args.a, args.k, args.m, 1, args.lda, 0, kRowsA) ||
      !encode_rows<T>(map_b, args.b, args.k, args.n, 1, args.ldb, 0, BRows)) {
    unaddressable = true;
    return cudaSuccess;
  }
  int device = 0, resident = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = resident_clusters<kKernel, Slices>(device, resident);
  if (e != cudaSuccess) return e;
  if (resident == 0) return cudaErrorInvalidClusterSize;
  const int tiles = (args.m + kRowsA - 1) / kRowsA;
  const int clusters = tiles < resident ? tiles : resident;
  return launch_dependent_in_clusters(Slices, kKernel, dim3(clusters * Slices), dim3(kThreads),
                                      kSkinnySplitSharedBytes, stream, args, map_a, map_b);
}

// B's box: n rounded up to 16, 32 or 64 rows.
template <typename T, int MTiles, int Slices, int KBoxes, int Stages>
cudaError_t launch_config(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  if (args.n <= 16) {
    return launch_shape<T, MTiles, Slices, KBoxes, Stages, 16>(args, stream, unaddressable);
  }
  if (args.n <= 32) {
    return launch_shape<T, MTiles, Slices, KBoxes, Stages, 32>(args, stream, unaddressable);
  }
  return launch_shape<T, MTiles, Slices, KBoxes, Stages, 64>(args, stream, unaddressable);
}

template <typename T>
cudaError_t launch_typed(SkinnySplitConfig c, const SkinnyArgs& args, cudaStream_t stream,
                         bool& unaddressable) {
  static_assert(std::size(kSkinnySplitConfigs) == 5, "a configuration is not dispatched");
  constexpr const SkinnySplitConfig* k = kSkinnySplitConfigs;
  if (c == k[0]) return launch_config<T, 4, 2, 2, 4>(args, stream, unaddressable);
  if (c == k[1]) return launch_config<T, 4, 4, 2, 4>(args, stream, unaddressable);
  if (c == k[2]) return launch_config<T, 4, 8, 2, 4>(args, stream, unaddressable);
  if (c == k[3]) return launch_config<T, 4, 8, 2, 6>(args, stream, unaddressable);
  if (c == k[4]) return launch_config<T, 4, 8, 1, 8>(args, stream, unaddressable);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skinny_split_tn(SkinnyType type, SkinnySplitConfig config,
                                   const SkinnyArgs& args, cudaStream_t stream) {
  if (args.m <= 0 || args.k <= 0 || args.batch != 1 ||
      !skinny_split_fits(config, args.n, args.k)) {
    return cudaErrorInvalidValue;
  }
  return launch_by_type(type, args, stream, [&](auto element, bool& unaddressable) {
    return launch_typed<decltype(element)>(config, args, stream, unaddressable);
  });
}

}  // namespace gemmtune::cuda
