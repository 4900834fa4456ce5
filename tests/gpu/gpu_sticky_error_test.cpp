// A candidate that faults (here: cuBLAS reading an unmapped address) leaves a sticky error; the
// backend reports it as such instead of carrying on. Its own binary, since the context is lost.
#include <gtest/gtest.h>

#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(CudaStickyError, AHealthyDeviceHasNone) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CudaBackend backend(0);
  backend.synchronize();
  std::string what;
  EXPECT_FALSE(cuda_sticky_error(&what));
  EXPECT_TRUE(what.empty());
}

TEST(CudaStickyError, AFaultingCandidateIsReportedAsSticky) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CudaBackend backend(0);
  const Problem p =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 1024, 1024, 1024);
  auto c = backend.allocate(static_cast<std::size_t>(p.c_elements()) * 4);
  auto b = backend.allocate(static_cast<std::size_t>(p.b_elements()) * 4);
  Operands ops;
  ops.a = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);  // unmapped
  ops.b = b->data();
  ops.c = c->data();
  auto solution = cuda::make_default_solution(p);
  const RunStatus launched = solution->run(p, ops, backend.stream());
  fmt::print("launch: {}\n", launched ? "ok" : launched.error);
  try {
    backend.synchronize();
    FAIL() << "no error";
  } catch (const Error& e) {
    fmt::print("synchronize: {}\n", e.what());
    EXPECT_NE(e.message().find("sticky CUDA error"), std::string::npos) << e.what();
  }
  std::string what;
  EXPECT_TRUE(cuda_sticky_error(&what));
  EXPECT_NE(what.find("cudaError"), std::string::npos) << what;
}

}  // namespace
}  // namespace gemmtune
