// Device discovery, current-device scoping and sticky-error detection.
//
// `cuda_device_count()` is safe on machines without a driver or GPU: it returns 0 instead of
// failing. A sticky error (an illegal address, a kernel fault) leaves the device context unusable
// for the rest of the process; `cuda_sticky_error` tells it apart from an ordinary failed call so
// that the tuner can end the problem with a clear message instead of recording garbage.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace gemmtune {

// Number of CUDA devices usable by this process; 0 when there is no driver or no GPU.
int cuda_device_count() noexcept;

// True when the current device holds a sticky error; `what` (if given) receives its description.
// Waits for the device's outstanding work first, since faults surface only then.
bool cuda_sticky_error(std::string* what = nullptr);

namespace cuda {

// Whether an error code is one of those that poison the context for good.
bool is_sticky(cudaError_t error) noexcept;

// The device a stream belongs to (the current device for the legacy default stream and for a
// stream being captured into a CUDA graph, which cudaStreamGetDevice refuses: work captured into
// a stream is issued from its device, so that device is current).
int device_of(cudaStream_t stream);

// Makes `device` current for the scope and restores the previous one afterwards; does nothing
// when it is current already.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace cuda
}  // namespace gemmtune
