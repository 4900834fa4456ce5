// The backend conformance suite: what every Backend (tuner/backend.hpp) and its solution
// providers must do for the engine to tune on them. A new backend passes it before anything else.
//
// It is a value-parameterised GoogleTest suite, BackendConformance, whose parameter says how to
// open the backend, how to register its solutions and which dtypes it claims. A backend's test
// binary instantiates it once and links the object library gemmtune_backend_conformance:
//
//   INSTANTIATE_TEST_SUITE_P(Cpu, BackendConformance, testing::Values(cpu_backend_under_test()),
//                            backend_under_test_name);
//
// (tests/conformance/cpu_conformance_test.cpp and cuda_conformance_test.cpp are the two worked
// examples; docs/adding-a-backend.md walks through the rest.) Where the backend cannot be opened
// here (no device, no driver), every test skips with the reason `unavailable` gives, as the GPU
// tests do, so a CPU-only CI passes and a host with the device runs everything.
//
// The suite checks only contracts the engine relies on and that are written down: in
// backend.hpp, solution.hpp, registry.hpp, numerical_check.hpp and profiler.hpp (kMaxChunk). It
// never asserts a time, only that samples exist and are positive; numbers are checked against a
// double-precision host reference with the tuner's own numerical check.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/registry.hpp"

namespace gemmtune::conformance {

struct BackendUnderTest {
  // Names the instantiation's tests ("cpu", "cuda"): letters, digits and '_' only.
  std::string name;
  // Why the backend cannot be opened on this machine, or nullopt where it can. Called once per
  // test before `open`; a reason skips the test.
  std::function<std::optional<std::string>()> unavailable;
  // Opens the backend on its first device.
  std::function<std::unique_ptr<Backend>()> open;
  // Registers the backend's solution providers (register_cpu_solutions, ...).
  std::function<void(Registry&)> register_solutions;
  // The dtypes the backend claims: it fills, poisons, copies and reads buffers of each, and its
  // `Default` computes a Gemm and a GemmStridedBatched of each (fp8: a ScaledGemm, A transposed).
  std::vector<DType> dtypes;
  // Validator keys its versions() must report (besides being non-empty): what tells results
  // measured with another driver, library or device apart.
  std::vector<std::string> version_keys;
};

// The parameter's name, for INSTANTIATE_TEST_SUITE_P.
std::string backend_under_test_name(const testing::TestParamInfo<BackendUnderTest>& info);

// What GoogleTest prints for the parameter.
void PrintTo(const BackendUnderTest& target, std::ostream* os);

// Opens the backend and its registry for each test, or skips where it is unavailable.
class BackendConformance : public testing::TestWithParam<BackendUnderTest> {
 protected:
  void SetUp() override;

  Backend& backend() { return *backend_; }
  const Registry& registry() const { return registry_; }
  const std::vector<DType>& dtypes() const { return GetParam().dtypes; }

  std::unique_ptr<Backend> backend_;
  Registry registry_;
};

}  // namespace gemmtune::conformance
