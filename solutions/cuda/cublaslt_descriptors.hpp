// RAII for cuBLASLt's descriptors: the matmul operation, the four matrix layouts and the
// heuristic preference. Attributes are set with typed helpers that check every status.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {

class MatmulDesc {
 public:
  MatmulDesc(cublasComputeType_t compute, cudaDataType_t scale);
  ~MatmulDesc();
  MatmulDesc(const MatmulDesc&) = delete;
  MatmulDesc& operator=(const MatmulDesc&) = delete;

  cublasLtMatmulDesc_t get() const { return desc_; }

  template <typename T>
  void set(cublasLtMatmulDescAttributes_t attribute, const T& value) {
    GEMMTUNE_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, attribute, &value, sizeof(T)));
  }

 private:
  cublasLtMatmulDesc_t desc_ = nullptr;
};

class MatrixLayout {
 public:
  // Column-major rows×cols with leading dimension ld.
  MatrixLayout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld);
  ~MatrixLayout();
  MatrixLayout(const MatrixLayout&) = delete;
  MatrixLayout& operator=(const MatrixLayout&) = delete;

  cublasLtMatrixLayout_t get() const { return layout_; }

  template <typename T>
  void set(cublasLtMatrixLayoutAttribute_t attribute, const T& value) {
    GEMMTUNE_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout_, attribute, &value, sizeof(T)));
  }
  // Strided batch: `count` matrices, `stride` elements apart.
  void set_batch(int count, std::int64_t stride);

 private:
  cublasLtMatrixLayout_t layout_ = nullptr;
};

class MatmulPreference {
 public:
  explicit MatmulPreference(std::size_t max_workspace_bytes);
  ~MatmulPreference();
  MatmulPreference(const MatmulPreference&) = delete;
  MatmulPreference& operator=(const MatmulPreference&) = delete;

  cublasLtMatmulPreference_t get() const { return preference_; }

 private:
  cublasLtMatmulPreference_t preference_ = nullptr;
};

}  // namespace gemmtune::cuda
