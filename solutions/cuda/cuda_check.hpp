// Check macros for every CUDA runtime, cuBLAS and cuBLASLt call.
//
// GEMMTUNE_CUDA_CHECK(call) throws gemmtune::Error carrying file:line, the call text and the
// runtime's name and description of the error; GEMMTUNE_CUBLAS_CHECK does the same for
// cublasStatus_t, which cuBLAS and cuBLASLt share. The _NOEXCEPT forms report to stderr instead
// of throwing, for destructors. The message builders are exposed so that expected failures (a
// candidate that will not launch) can become values with the same wording.
#pragma once

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

namespace gemmtune::cuda {

// "cudaErrorInvalidValue (invalid argument)"
std::string describe(cudaError_t error);
// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)"
std::string describe(cublasStatus_t status);

// "<call> failed: <describe(error)>"
std::string call_failed_message(std::string_view call, cudaError_t error);
std::string call_failed_message(std::string_view call, cublasStatus_t status);

// The launch error a library call left as the thread's last CUDA error, or cudaSuccess. `pending`
// is cudaPeekAtLastError() from before the call: an error already pending then is the
// application's, and is neither reported as the call's nor cleared.
inline cudaError_t launch_error_since(cudaError_t pending) noexcept {
  return pending != cudaSuccess ? cudaSuccess : cudaGetLastError();
}

// Throws DeviceError for a sticky error (see is_sticky), Error otherwise.
[[noreturn]] void throw_cuda_error(const char* file, int line, const char* call, cudaError_t error);
[[noreturn]] void throw_cublas_error(const char* file, int line, const char* call,
                                     cublasStatus_t status);
void report_cuda_error(const char* file, int line, const char* call, cudaError_t error) noexcept;
void report_cublas_error(const char* file, int line, const char* call,
                         cublasStatus_t status) noexcept;

}  // namespace gemmtune::cuda

#define GEMMTUNE_CUDA_CHECK(call)                                                           \
  do {                                                                                      \
    const cudaError_t gemmtune_cuda_status_ = (call);                                       \
    if (gemmtune_cuda_status_ != cudaSuccess) {                                             \
      ::gemmtune::cuda::throw_cuda_error(__FILE__, __LINE__, #call, gemmtune_cuda_status_); \
    }                                                                                       \
  } while (false)

#define GEMMTUNE_CUDA_CHECK_NOEXCEPT(call)                                                   \
  do {                                                                                       \
    const cudaError_t gemmtune_cuda_status_ = (call);                                        \
    if (gemmtune_cuda_status_ != cudaSuccess) {                                              \
      ::gemmtune::cuda::report_cuda_error(__FILE__, __LINE__, #call, gemmtune_cuda_status_); \
    }                                                                                        \
  } while (false)

#define GEMMTUNE_CUBLAS_CHECK(call)                                                             \
  do {                                                                                          \
    const cublasStatus_t gemmtune_cublas_status_ = (call);                                      \
    if (gemmtune_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                     \
      ::gemmtune::cuda::throw_cublas_error(__FILE__, __LINE__, #call, gemmtune_cublas_status_); \
    }                                                                                           \
  } while (false)

#define GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(call)                                                     \
  do {                                                                                           \
    const cublasStatus_t gemmtune_cublas_status_ = (call);                                       \
    if (gemmtune_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                      \
      ::gemmtune::cuda::report_cublas_error(__FILE__, __LINE__, #call, gemmtune_cublas_status_); \
    }                                                                                            \
  } while (false)
