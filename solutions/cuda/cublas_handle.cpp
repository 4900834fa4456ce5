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

// Runs `destroy` with `device` current and restores the device after: a handle is destroyed on the
// device it was made on, and a thread ending destroys its handles of every device at once. Where
// the runtime is already gone (process exit) it just runs `destroy`.
template <typename F>
void on_device_noexcept(int device, F&& destroy) noexcept {
  int current = -1;
  bool switched = false;
  if (cudaGetDevice(&current) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: the runtime is shutting down
  } else if (current != device) {
    switched = cudaSetDevice(device) == cudaSuccess;
    if (!switched) (void)cudaGetLastError();
  }
  destroy();
  if (switched) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaSetDevice(current));
}

}  // namespace

CublasHandle::CublasHandle() : device_(current_device_id()) {
  GEMMTUNE_CUBLAS_CHECK(cublasCreate(&handle_));
}

CublasHandle::~CublasHandle() {
  if (handle_ == nullptr) return;
  on_device_noexcept(device_, [&] { GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasDestroy(handle_)); });
}

CublasLtHandle::CublasLtHandle() : device_(current_device_id()) {
  GEMMTUNE_CUBLAS_CHECK(cublasLtCreate(&handle_));
}

CublasLtHandle::~CublasLtHandle() {
  if (handle_ == nullptr) return;
  on_device_noexcept(device_, [&] { GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(cublasLtDestroy(handle_)); });
}

cublasHandle_t cublas_handle() {
  return handle_for_current_device<CublasHandle>().get();
}

cublasLtHandle_t cublaslt_handle() {
  return handle_for_current_device<CublasLtHandle>().get();
}

}  // namespace gemmtune::cuda
