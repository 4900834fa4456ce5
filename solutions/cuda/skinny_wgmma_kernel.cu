// Compiled for sm_90a only (its own target in CMakeLists.txt): wgmma has no portable form.
#include "solutions/cuda/skinny_wgmma_kernel.hpp"

#include <climits>
#include <cstdint>
#include <iterator>

#include "solutions/cuda/skinny_bulk_kernel.hpp"
#include "solutions/cuda/skinny_tc_kernel.hpp"
#include "solutions/cuda/skinny_tma_host.cuh"
#include "solutions/cuda/skinny_wgmma_kernel.cuh"

namespace gemmtune::cuda {
namespace {

using namespace skinny;

template <typename T, int MTiles, int Groups, int KBoxes, int Stages, int BRows>
cudaError_t launch_shape(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  constexpr int kThreads = Groups * 128 + 32;
  constexpr int kBytes = wg_kernel_shared_bytes<MTiles, Groups, KBoxes, Stages, BRows>();
  static_assert(kBytes == skinny_wgmma_shared_bytes({MTiles, Groups, KBoxes, Stages}, BRows));
  if constexpr (kBytes > kSkinnyBulkMaxSharedBytes) {
    return cudaErrorInvalidValue;  // the ring does not fit at this n
  } else {
    constexpr auto kKernel = skinny_wgmma_kernel<T, MTiles, Groups, KBoxes, Stages, BRows>;
    CUtensorMap map_a, map_b;
    if (!encode_rows<T>(map_a, args.a, args.k, args.m, args.batch, args.lda, args.stride_a,
                        16 * MTiles) ||
        !encode_rows<T>(map_b, args.b, args.k, args.n, args.batch, args.ldb, args.stride_b,
                        BRows)) {
      unaddressable = true;
      return cudaSuccess;
    }
    int device = 0, resident = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = resident_blocks<kKernel, kThreads, kBytes>(device, resident);
    if (e != cudaSuccess) return e;
    const std::int64_t tiles =
        static_cast<std::int64_t>((args.m + 16 * MTiles - 1) / (16 * MTiles)) * args.batch;
    if (tiles > INT_MAX) return cudaErrorInvalidValue;  // the kernel counts tiles in int
    const int blocks = tiles < resident ? static_cast<int>(tiles) : resident;
    kKernel<<<blocks, kThreads, kBytes, stream>>>(args, map_a, map_b);
    return cudaGetLastError();
  }
}

// B's box: n rounded up to 16, 32 or 64 rows.
template <typename T, int MTiles, int Groups, int KBoxes, int Stages>
cudaError_t launch_config(const SkinnyArgs& args, cudaStream_t stream, bool& unaddressable) {
  if (args.n <= 16) {
    return launch_shape<T, MTiles, Groups, KBoxes, Stages, 16>(args, stream, unaddressable);
  }
  if (args.n <= 32) {
    return launch_shape<T, MTiles, Groups, KBoxes, Stages, 32>(args, stream, unaddressable);
  }
  return launch_shape<T, MTiles, Groups, KBoxes, Stages, 64>(args, stream, unaddressable);
}

template <typename T>
cudaError_t launch_typed(SkinnyWgmmaConfig c, const SkinnyArgs& args, cudaStream_t stream,
                         bool& unaddressable) {
  const auto is = [&](SkinnyWgmmaConfig k) {
    return c.m_tiles == k.m_tiles && c.groups == k.groups && c.k_boxes == k.k_boxes &&
           c.stages == k.stages;
  };
  static_assert(std::size(kSkinnyWgmmaConfigs) == 10, "a configuration is not dispatched");
  constexpr const SkinnyWgmmaConfig* k = kSkinnyWgmmaConfigs;
  if (is(k[0])) return launch_config<T, 2, 2, 2, 8>(args, stream, unaddressable);
  if (is(k[1])) return launch_config<T, 2, 2, 2, 12>(args, stream, unaddressable);
  if (is(k[2])) return launch_config<T, 2, 2, 4, 6>(args, stream, unaddressable);
  if (is(k[3])) return launch_config<T, 4, 1, 2, 6>(args, stream, unaddressable);
  if (is(k[4])) return launch_config<T, 4, 2, 2, 6>(args, stream, unaddressable);
  if (is(k[5])) return launch_config<T, 4, 2, 2, 8>(args, stream, unaddressable);
  if (is(k[6])) return launch_config<T, 8, 1, 1, 8>(args, stream, unaddressable);
  if (is(k[7])) return launch_config<T, 5, 2, 1, 10>(args, stream, unaddressable);
  if (is(k[8])) return launch_config<T, 7, 2, 1, 8>(args, stream, unaddressable);
  if (is(k[9])) return launch_config<T, 14, 1, 1, 6>(args, stream, unaddressable);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_skinny_wgmma_tn(SkinnyType type, SkinnyWgmmaConfig config,
                                   const SkinnyArgs& args, cudaStream_t stream) {
  if (args.m <= 0 || args.n <= 0 || args.n > kSkinnyWgmmaMaxN || args.k <= 0 || args.batch <= 0 ||
      skinny_wgmma_shared_bytes(config, skinny_wgmma_b_rows(args.n)) > kSkinnyBulkMaxSharedBytes) {
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
