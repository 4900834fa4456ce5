#include "solutions/cuda/cuda_device.hpp"

#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune {

int cuda_device_count() noexcept {
  int count = 0;
  // With no driver this returns cudaErrorNoDevice or cudaErrorInsufficientDriver; clear it so
  // that it does not surface in a later, unrelated call.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

bool cuda_sticky_error(std::string* what) {
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced == cudaSuccess) return false;
  // An ordinary error is cleared by reading it; a sticky one is returned again by every call.
  (void)cudaGetLastError();
  const cudaError_t again = cudaDeviceSynchronize();
  if (again == cudaSuccess && !cuda::is_sticky(synced)) return false;
  if (what != nullptr) {
    *what = "sticky CUDA error, the device context is unusable until the process restarts: " +
            cuda::describe(again != cudaSuccess ? again : synced);
  }
  return true;
}

namespace cuda {

bool is_sticky(cudaError_t error) noexcept {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorTensorMemoryLeak:
      return true;
    default:
      return false;
  }
}

int device_of(cudaStream_t stream) {
  int device = 0;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  // Asked first: cudaStreamGetDevice on a capturing stream fails and invalidates the capture.
  if (stream != nullptr) GEMMTUNE_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (stream == nullptr || capture != cudaStreamCaptureStatusNone) {
    GEMMTUNE_CUDA_CHECK(cudaGetDevice(&device));
  } else {
    GEMMTUNE_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  }
  return device;
}

ScopedDevice::ScopedDevice(int device) {
  int current = 0;
  GEMMTUNE_CUDA_CHECK(cudaGetDevice(&current));
  if (current != device) {
    GEMMTUNE_CUDA_CHECK(cudaSetDevice(device));
    previous_ = current;
  }
}

ScopedDevice::~ScopedDevice() {
  if (previous_ >= 0) GEMMTUNE_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous_));
}

}  // namespace cuda
}  // namespace gemmtune
