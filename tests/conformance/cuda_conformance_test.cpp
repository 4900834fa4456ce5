// The CUDA backend under the backend conformance suite (label gpu: skips without a CUDA device).
#include <memory>

#include "backend_conformance.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/register_cuda.hpp"

namespace gemmtune::conformance {
namespace {

BackendUnderTest cuda_backend_under_test() {
  BackendUnderTest target;
  target.name = "cuda";
  target.unavailable = []() -> std::optional<std::string> {
    if (cuda_device_count() == 0) return "no CUDA device";
    return std::nullopt;
  };
  target.open = [] { return std::make_unique<CudaBackend>(0); };
  target.register_solutions = register_cuda_solutions;
  // Every type but AMD's fnuz fp8 formats, which CUDA has no kernels for.
  target.dtypes = {DType::Float32,    DType::TF32,           DType::Float64,
                   DType::BFloat16,   DType::Float16,        DType::Float8E4M3,
                   DType::Float8E5M2, DType::ComplexFloat32, DType::ComplexFloat64};
  target.version_keys = {"CUDA_RUNTIME_VERSION",
                         "CUDA_DRIVER_VERSION",
                         "CUBLAS_VERSION",
                         "CUBLASLT_VERSION",
                         "GPU_NAME",
                         "GPU_COMPUTE_CAPABILITY",
                         "GPU_SM_COUNT"};
  return target;
}

INSTANTIATE_TEST_SUITE_P(Cuda, BackendConformance, testing::Values(cuda_backend_under_test()),
                         backend_under_test_name);

}  // namespace
}  // namespace gemmtune::conformance
