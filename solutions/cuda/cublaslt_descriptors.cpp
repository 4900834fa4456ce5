#include "solutions/cuda/cublaslt_descriptors.hpp"

#include <cstdint>

namespace gemmtune::cuda {

MatmulDesc::MatmulDesc(cublasComputeType_t compute, cudaDataType_t scale) {
  GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, compute, scale));
}

MatmulDesc::~MatmulDesc() {
  if (desc_ != nullptr) GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtMatmulDescDestroy(desc_));
}

MatrixLayout::MatrixLayout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols,
                           std::int64_t ld) {
  GEMMTUNE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout_, type, rows, cols, ld));
}

MatrixLayout::~MatrixLayout() {
  if (layout_ != nullptr) GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtMatrixLayoutDestroy(layout_));
}

void MatrixLayout::set_batch(int count, std::int64_t stride) {
  set(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, std::int32_t{count});
  set(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, std::int64_t{stride});
}

MatmulPreference::MatmulPreference(std::size_t max_workspace_bytes) {
  GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference_));
  const std::uint64_t bytes = max_workspace_bytes;
  const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(
      preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof(bytes));
  if (set != CUBLAS_STATUS_SUCCESS) {
    // A constructor that throws runs no destructor: the handle is released here.
    GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtMatmulPreferenceDestroy(preference_));
    throw_cublas_error(__FILE__, __LINE__,
                       "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)", set);
  }
}

MatmulPreference::~MatmulPreference() {
  if (preference_ != nullptr) {
    GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtMatmulPreferenceDestroy(preference_));
  }
}

}  // namespace gemmtune::cuda
