#include "solutions/cuda/cublas_handle.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "solutions/cuda/capture_mode.hpp"
#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::cuda {
namespace {

int current_device_id() {
  int device = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// Handles no thread holds, by device. cublasDestroy synchronizes the whole device, which, while
// another thread of the application captures a CUDA graph, invalidates that capture (and stalls
// every stream otherwise): so a thread that ends gives its handles back here instead of
// destroying them, and the next thread to need one takes it. Never destroyed: threads may end
// after static destruction, and at process exit the driver releases what the handles hold.
template <typename Handle>
class IdleHandles {
 public:
  static IdleHandles& instance() {
    static auto* idle = new IdleHandles;
    return *idle;
  }
  std::unique_ptr<Handle> take(int device) {
    {
      const std::lock_guard lock(mutex_);
      auto& free = by_device_[device];
      if (!free.empty()) {
        std::unique_ptr<Handle> h = std::move(free.back());
        free.pop_back();
        return h;
      }
    }
    // Its creation allocates on the device: relaxed, for the same reason (capture_mode.hpp).
    const RelaxedCaptureMode relaxed;
    return std::make_unique<Handle>();
  }
  void give_back(int device, std::unique_ptr<Handle> handle) noexcept {
    try {
      const std::lock_guard lock(mutex_);
      by_device_[device].push_back(std::move(handle));
    } catch (...) {
      (void)handle.release();  // out of memory at a thread's end: leak it rather than sync
    }
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<std::unique_ptr<Handle>>> by_device_;
};

// The calling thread's handles, one per device, taken from IdleHandles at first use and given
// back when the thread ends.
template <typename Handle>
class ThreadHandles {
 public:
  ~ThreadHandles() {
    for (auto& [device, handle] : handles_) {
      IdleHandles<Handle>::instance().give_back(device, std::move(handle));
    }
  }
  Handle& for_device(int device) {
    auto& slot = handles_[device];
    if (!slot) slot = IdleHandles<Handle>::instance().take(device);
    return *slot;
  }

 private:
  std::map<int, std::unique_ptr<Handle>> handles_;
};

template <typename Handle>
Handle& handle_for_current_device() {
  thread_local ThreadHandles<Handle> handles;
  return handles.for_device(current_device_id());
}

// Runs `destroy` with `device` current and restores the device after: a handle is destroyed on the
// device it was made on, whichever is current where its owner ends. Where the runtime is already
// gone (process exit) it just runs `destroy`.
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
