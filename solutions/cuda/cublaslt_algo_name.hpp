// The configuration of a cuBLASLt algorithm and its name in PyTorch TunableOp's format:
//
//   Gemm_Cublaslt_id_%d_tile_%u_stages_%u_splitk_%d_red_%u_swizzle_%u_custom_%u_inner_%hu_cluster_%hu
//
// The name holds every CUBLASLT_ALGO_CONFIG_* attribute, so that the name alone rebuilds the
// algorithm (cublaslt_algo_config.hpp does that on a GPU). This file needs no CUDA: it is plain
// formatting and parsing, tested without a GPU, and built in every configuration (the library
// gemmtune_cublaslt_name), since db convert --for-pytorch checks names with it.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gemmtune::cuda {

inline constexpr std::string_view kCublasltNamePrefix = "Gemm_Cublaslt_";

struct AlgoConfig {
  std::int32_t id = 0;          // CUBLASLT_ALGO_CONFIG_ID
  std::uint32_t tile = 0;       // CUBLASLT_ALGO_CONFIG_TILE_ID
  std::uint32_t stages = 0;     // CUBLASLT_ALGO_CONFIG_STAGES_ID
  std::int32_t splitk = 1;      // CUBLASLT_ALGO_CONFIG_SPLITK_NUM
  std::uint32_t reduction = 0;  // CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME
  std::uint32_t swizzle = 0;    // CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING
  std::uint32_t custom = 0;     // CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION
  std::uint16_t inner = 0;      // CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID
  std::uint16_t cluster = 0;    // CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID

  friend auto operator<=>(const AlgoConfig&, const AlgoConfig&) = default;
};

std::string algo_name(const AlgoConfig& config);

// The configuration a name denotes, or nothing when the name is not exactly in the format above
// (other providers' names, truncated names, values out of range, trailing text).
std::optional<AlgoConfig> parse_algo_name(std::string_view name);

}  // namespace gemmtune::cuda
