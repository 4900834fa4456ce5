#include "solutions/cuda/cublas_handle.hpp"

#include <map>
#include <memory>

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

int current_device_id() {
  int device = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

template <typename Handle>
Handle& handle_for_current_device() {
  thread_local std::map<int, std::unique_ptr<Handle>> handles;
  auto& slot = handles[current_device_id()];
  if (!slot) slot = std::make_unique<Handle>();
  return *slot;
}

}  // namespace

CublasHandle::CublasHandle() {
  GEMMTUNE_CUBLAS_CHECK(cublasCreate(&handle_));
}

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr) GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasDestroy(handle_));
}

CublasLtHandle::CublasLtHandle() {
  GEMMTUNE_CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtHandle::~CublasLtHandle() {
  if (handle_ != nullptr) GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtDestroy(handle_));
}

cublasHandle_t cublas_handle() {
  return handle_for_current_device<CublasHandle>().get();
}

cublasLtHandle_t cublaslt_handle() {
  return handle_for_current_device<CublasLtHandle>().get();
}

}  // namespace gemmtune::cuda
