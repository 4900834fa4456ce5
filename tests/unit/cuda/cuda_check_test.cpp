// The check macros: one exception type with file:line, the call text and the library's error
// name and string; the _NOEXCEPT forms report instead of throwing. No GPU is touched.
#include <gtest/gtest.h>

#include "solutions/cuda/cuda_check.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cuda {
namespace {

cudaError_t fails_with_invalid_value() {
  return cudaErrorInvalidValue;
}
cublasStatus_t fails_with_not_supported() {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

TEST(CudaCheck, ThrowsWithCallTextAndCudaErrorString) {
  try {
    GEMMTUNE_CUDA_CHECK(fails_with_invalid_value());
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(e.file().find("cuda_check_test.cpp"), std::string::npos);
    EXPECT_GT(e.line(), 0);
    EXPECT_NE(e.message().find("fails_with_invalid_value()"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("cudaErrorInvalidValue"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("invalid argument"), std::string::npos) << e.what();
  }
}

TEST(CudaCheck, ThrowsWithCallTextAndCublasStatusString) {
  try {
    GEMMTUNE_CUBLAS_CHECK(fails_with_not_supported());
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("fails_with_not_supported()"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaCheck, SuccessDoesNothing) {
  EXPECT_NO_THROW(GEMMTUNE_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(GEMMTUNE_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST(CudaCheck, NoexceptFormsReportToStderr) {
  testing::internal::CaptureStderr();
  GEMMTUNE_CUDA_CHECK_NOEXCEPT(fails_with_invalid_value());
  GEMMTUNE_CUBLAS_CHECK_NOEXCEPT(fails_with_not_supported());
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("cudaErrorInvalidValue"), std::string::npos) << err;
  EXPECT_NE(err.find("CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << err;
}

TEST(CudaCheck, DescribeNamesTheStatus) {
  EXPECT_EQ(call_failed_message("f()", CUBLAS_STATUS_ARCH_MISMATCH).rfind("f() failed: ", 0), 0u);
  EXPECT_NE(describe(cudaErrorIllegalAddress).find("cudaErrorIllegalAddress"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune::cuda
