// The fixture most GPU tests share: the CUDA backend of device 0, or the test skipped where no
// CUDA device is usable (cuda_device_count() is 0; GEMMTUNE_REQUIRE_GPU=1 turns that into a
// failure in the tests that check it).
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune::gpu_test {

class DeviceTest : public testing::Test {
 protected:
  // A fixture with more to set up calls this first and returns if IsSkipped().
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    backend_ = std::make_unique<CudaBackend>(0);
  }
  std::unique_ptr<CudaBackend> backend_;
};

}  // namespace gemmtune::gpu_test
