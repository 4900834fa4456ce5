// A candidate that faults (here: cuBLAS reading an unmapped address) leaves a sticky error. The
// tuner must end the problem with it, marked fatal so that the run stops using the device,
// instead of blaming that candidate alone and carrying on with a dead context. Its own binary,
// since the context is lost for the rest of the process.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "tuner/error.hpp"
#include "tuner/tuner.hpp"

namespace gemmtune {
namespace {

Problem fp32_square() {
  return Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 1024, 1024, 1024);
}

// Default's call with A pointing at unmapped memory.
class FaultingSolution final : public Solution {
 public:
  explicit FaultingSolution(const Problem& p) : inner_(cuda::make_default_solution(p)) {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem& p) const override { return inner_->supports(p); }
  RunStatus run(const Problem& p, const Operands& o, void* stream) override {
    Operands unmapped = o;
    unmapped.a = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);
    return inner_->run(p, unmapped, stream);
  }

 private:
  std::unique_ptr<Solution> inner_;
  std::string name_ = "Faulting_UnmappedA";
};

class FaultingProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "faulting"; }
  std::string_view backend() const override { return "cuda"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(std::make_unique<FaultingSolution>(p));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override { return nullptr; }
};

TEST(CudaStickyError, AHealthyDeviceHasNone) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CudaBackend backend(0);
  backend.synchronize();
  std::string what;
  EXPECT_FALSE(cuda_sticky_error(&what));
  EXPECT_TRUE(what.empty());
}

TEST(CudaStickyError, AFaultingCandidateEndsTheProblemAsFatal) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  CudaBackend backend(0);
  Registry registry;
  registry.add(std::make_shared<cuda::CublasProvider>());  // Default, measured first
  registry.add(std::make_shared<FaultingProvider>());
  TunerOptions options;
  options.timing.max_tuning_duration_ms = 10;
  const TuningReport report = Tuner(backend, registry, options).tune(fp32_square());
  fmt::print("report error: {}\n", report.error);
  EXPECT_FALSE(report.ok());
  EXPECT_TRUE(report.fatal);
  EXPECT_NE(report.error.find("device error"), std::string::npos) << report.error;
  EXPECT_NE(report.error.find("sticky CUDA error"), std::string::npos) << report.error;
  // The backend reports it the same way to whoever asks next.
  EXPECT_THROW(backend.synchronize(), DeviceError);
  std::string what;
  EXPECT_TRUE(cuda_sticky_error(&what));
  EXPECT_NE(what.find("cudaError"), std::string::npos) << what;
}

}  // namespace
}  // namespace gemmtune
