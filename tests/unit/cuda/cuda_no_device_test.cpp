// What the CUDA backend does where there is no GPU (CI): it says so instead of crashing. On a
// machine with a GPU these tests check the same entry points answer sensibly.
#include <gtest/gtest.h>

#include "drivers/backend_factory.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/register_cuda.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(CudaNoDevice, DeviceCountNeverFails) {
  const int count = cuda_device_count();
  EXPECT_GE(count, 0);
  EXPECT_EQ(cuda_device_count(), count);
}

TEST(CudaNoDevice, BackendForAMissingDeviceThrowsAnError) {
  const int count = cuda_device_count();
  try {
    CudaBackend backend(count);  // one past the last device
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("does not exist"), std::string::npos) << e.what();
  }
}

TEST(CudaNoDevice, RegistersTheThreeProvidersForCuda) {
  Registry registry;
  register_cuda_solutions(registry);
  const auto providers = registry.providers_for("cuda");
  ASSERT_EQ(providers.size(), 3u);
  EXPECT_EQ(providers[0]->name(), "cublas");
  EXPECT_EQ(providers[1]->name(), "cublaslt");
  EXPECT_EQ(providers[2]->name(), "gemmtune_cuda");
  // The names a build without CUDA knows, to say what it lacks, are these.
  for (std::size_t i = 0; i < providers.size(); ++i) {
    EXPECT_EQ(providers[i]->name(), kCudaProviderNames[i]);
  }
  EXPECT_TRUE(registry.providers_for("cpu").empty());
}

TEST(CudaNoDevice, ForeignNamesAreNotCublasLts) {
  cuda::CublasLtProvider provider;
  const Problem p =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  EXPECT_EQ(provider.from_name(p, "Default"), nullptr);
  EXPECT_EQ(provider.from_name(p, "cpu_blocked_64"), nullptr);
}

}  // namespace
}  // namespace gemmtune
