// Reading an algorithm's configuration out of a cublasLtMatmulAlgo_t, and building one back
// from a configuration (cublasLtMatmulAlgoInit, then every CUBLASLT_ALGO_CONFIG_* attribute).
// The capability queries the search needs live here too.
#pragma once

#include <cublasLt.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cuda_types.hpp"

namespace gemmtune::cuda {

AlgoConfig read_config(const cublasLtMatmulAlgo_t& algo);

// The algorithm a configuration denotes for these types, or why it cannot be initialised
// (unknown id for the types, an attribute rejected). Not yet checked against a problem.
std::variant<cublasLtMatmulAlgo_t, std::string> build_algo(cublasLtHandle_t handle,
                                                           const GemmTypes& types,
                                                           const AlgoConfig& config);

// `base` (an algorithm of config.id) with every configuration attribute set from `config`.
std::variant<cublasLtMatmulAlgo_t, std::string> build_algo_from(cublasLtMatmulAlgo_t base,
                                                                const AlgoConfig& config);

struct AlgoCaps {
  bool splitk = false;
  std::uint32_t reduction_mask = 0;
  bool swizzle = false;
  std::int32_t custom_option_max = 0;
  std::vector<std::uint32_t> tiles;   // CUBLASLT_MATMUL_TILE_UNDEFINED alone when none
  std::vector<std::uint32_t> stages;  // CUBLASLT_MATMUL_STAGES_UNDEFINED alone when none
};

AlgoCaps read_caps(const cublasLtMatmulAlgo_t& algo);

}  // namespace gemmtune::cuda
