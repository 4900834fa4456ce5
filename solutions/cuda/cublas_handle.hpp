// CublasHandle and CublasLtHandle: owned library handles; and the per-thread, per-device handles
// solutions use.
//
// A cuBLAS handle belongs to the device that was current when it was created and keeps a stream
// as mutable state, so solutions never share one across threads: `cublas_handle()` and
// `cublaslt_handle()` return the calling thread's handle for the current device. A thread that
// ends gives its handles back for other threads to take rather than destroying them: destroying
// one synchronizes the device, which would invalidate a graph another thread is capturing.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

namespace gemmtune::cuda {

class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
  int device_ = 0;  // current at creation: the handle's
};

class CublasLtHandle {
 public:
  CublasLtHandle();
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;

  cublasLtHandle_t get() const { return handle_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
  int device_ = 0;
};

// The calling thread's handles for the current device.
cublasHandle_t cublas_handle();
cublasLtHandle_t cublaslt_handle();

}  // namespace gemmtune::cuda
