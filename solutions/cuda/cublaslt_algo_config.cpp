#include "solutions/cuda/cublaslt_algo_config.hpp"

#include <fmt/format.h>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

template <typename T>
T get_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  GEMMTUNE_CUBLAS_CHECK(
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), &written));
  return value;
}

template <typename T>
cublasStatus_t set_config(cublasLtMatmulAlgo_t& algo,
                          cublasLtMatmulAlgoConfigAttributes_t attribute, T value) {
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, attribute, &value, sizeof(value));
}

template <typename T>
T get_cap(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  GEMMTUNE_CUBLAS_CHECK(
      cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, &value, sizeof(value), &written));
  return value;
}

// An array capability: ask for its size first, then read it.
std::vector<std::uint32_t> get_cap_array(const cublasLtMatmulAlgo_t& algo,
                                         cublasLtMatmulAlgoCapAttributes_t attribute,
                                         std::uint32_t if_empty) {
  std::size_t bytes = 0;
  GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, nullptr, 0, &bytes));
  std::vector<std::uint32_t> values(bytes / sizeof(std::uint32_t));
  if (!values.empty()) {
    GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulAlgoCapGetAttribute(
        &algo, attribute, values.data(), values.size() * sizeof(std::uint32_t), &bytes));
    values.resize(bytes / sizeof(std::uint32_t));
  }
  if (values.empty()) values.push_back(if_empty);
  return values;
}

}  // namespace

AlgoConfig read_config(const cublasLtMatmulAlgo_t& algo) {
  AlgoConfig c;
  c.id = get_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  c.tile = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = get_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.reduction = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.swizzle = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom = get_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  c.inner = get_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID);
  c.cluster = get_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  return c;
}

std::variant<cublasLtMatmulAlgo_t, std::string> build_algo(cublasLtHandle_t handle,
                                                           const GemmTypes& t,
                                                           const AlgoConfig& c) {
  cublasLtMatmulAlgo_t algo{};
  cublasStatus_t status =
      cublasLtMatmulAlgoInit(handle, t.compute, t.scale, t.a, t.b, t.c, t.d, c.id, &algo);
  if (status != CUBLAS_STATUS_SUCCESS) {
    return call_failed_message(fmt::format("cublasLtMatmulAlgoInit(id {})", c.id), status);
  }
  return build_algo_from(algo, c);
}

std::variant<cublasLtMatmulAlgo_t, std::string> build_algo_from(cublasLtMatmulAlgo_t algo,
                                                                const AlgoConfig& c) {
  struct Step {
    const char* what;
    cublasStatus_t status;
  };
  const Step steps[] = {
      {"TILE_ID", set_config(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, c.tile)},
      {"STAGES_ID", set_config(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, c.stages)},
      {"SPLITK_NUM", set_config(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, c.splitk)},
      {"REDUCTION_SCHEME", set_config(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, c.reduction)},
      {"CTA_SWIZZLING", set_config(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, c.swizzle)},
      {"CUSTOM_OPTION", set_config(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, c.custom)},
      {"INNER_SHAPE_ID", set_config(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, c.inner)},
      {"CLUSTER_SHAPE_ID", set_config(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, c.cluster)},
  };
  for (const Step& step : steps) {
    if (step.status != CUBLAS_STATUS_SUCCESS) {
      return call_failed_message(
          fmt::format("cublasLtMatmulAlgoConfigSetAttribute(CUBLASLT_ALGO_CONFIG_{})", step.what),
          step.status);
    }
  }
  return algo;
}

AlgoCaps read_caps(const cublasLtMatmulAlgo_t& algo) {
  AlgoCaps caps;
  caps.splitk = get_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
  caps.reduction_mask = get_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
  caps.swizzle = get_cap<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0;
  caps.custom_option_max = get_cap<std::int32_t>(algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
  caps.tiles = get_cap_array(algo, CUBLASLT_ALGO_CAP_TILE_IDS, CUBLASLT_MATMUL_TILE_UNDEFINED);
  caps.stages = get_cap_array(algo, CUBLASLT_ALGO_CAP_STAGES_IDS, CUBLASLT_MATMUL_STAGES_UNDEFINED);
  return caps;
}

}  // namespace gemmtune::cuda
