#include "solutions/cuda/cuda_check.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include "solutions/cuda/cuda_device.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cuda {
namespace {

// cuBLAS's own table names each status; we add the enumerator name, which is what people search.
std::string_view status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
      return "CUBLAS_STATUS_UNKNOWN";
  }
}

}  // namespace

std::string describe(cudaError_t error) {
  return fmt::format("{} ({})", cudaGetErrorName(error), cudaGetErrorString(error));
}

std::string describe(cublasStatus_t status) {
  return fmt::format("{} ({})", status_name(status), cublasGetStatusString(status));
}

std::string call_failed_message(std::string_view call, cudaError_t error) {
  return fmt::format("{} failed: {}", call, describe(error));
}

std::string call_failed_message(std::string_view call, cublasStatus_t status) {
  return fmt::format("{} failed: {}", call, describe(status));
}

void throw_cuda_error(const char* file, int line, const char* call, cudaError_t error) {
  // Whichever call meets a sticky error first (often an event or a copy after the faulting
  // kernel), the device is gone for the process: a DeviceError, which the tuner does not pin on
  // the candidate in flight but ends the problem and the run on the device with.
  if (is_sticky(error)) {
    throw DeviceError(file, line,
                      "sticky CUDA error, the device context is unusable until the process "
                      "restarts: " +
                          call_failed_message(call, error));
  }
  // The failed call also left its error as the thread's last one. Reported now, it must not stay
  // there: the next launch check (cudaGetLastError after a kernel launch) would take it for its
  // own, failing a candidate that ran fine, and launch_error_since would take it for the
  // application's and let the next real launch error pass.
  (void)cudaGetLastError();
  throw_error(file, line, call_failed_message(call, error));
}

void throw_cublas_error(const char* file, int line, const char* call, cublasStatus_t status) {
  throw_error(file, line, call_failed_message(call, status));
}

void report_cuda_error(const char* file, int line, const char* call, cudaError_t error) noexcept {
  try {
    report_error_noexcept(file, line, call_failed_message(call, error));
  } catch (...) {
    report_error_noexcept(file, line, call);
  }
}

void report_cublas_error(const char* file, int line, const char* call,
                         cublasStatus_t status) noexcept {
  try {
    report_error_noexcept(file, line, call_failed_message(call, status));
  } catch (...) {
    report_error_noexcept(file, line, call);
  }
}

}  // namespace gemmtune::cuda
