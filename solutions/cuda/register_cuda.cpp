#include "solutions/cuda/register_cuda.hpp"

#include <memory>

#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune {

void register_cuda_solutions(Registry& registry) {
  registry.add(std::make_shared<cuda::CublasProvider>());
  registry.add(std::make_shared<cuda::CublasLtProvider>());
  registry.add(std::make_shared<cuda::GemmtuneCudaProvider>());
}

}  // namespace gemmtune
