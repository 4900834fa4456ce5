// The CPU backend under the backend conformance suite (label unit: runs everywhere).
#include <memory>

#include "backend_conformance.hpp"
#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/register_cpu.hpp"

namespace gemmtune::conformance {
namespace {

BackendUnderTest cpu_backend_under_test() {
  BackendUnderTest target;
  target.name = "cpu";
  target.unavailable = [] { return std::optional<std::string>(); };  // the host is always there
  target.open = [] { return std::make_unique<cpu::CpuBackend>(); };
  target.register_solutions = register_cpu_solutions;
  // Default is a double-precision reference for every type PyTorch records, AMD's fnuz fp8 too.
  for (const DTypeInfo& t : all_dtypes()) target.dtypes.push_back(t.dtype);
  target.version_keys = {"CPU_MODEL", "CPU_CORES", "LAST_LEVEL_CACHE_BYTES", "OPENBLAS_CONFIG"};
  return target;
}

INSTANTIATE_TEST_SUITE_P(Cpu, BackendConformance, testing::Values(cpu_backend_under_test()),
                         backend_under_test_name);

}  // namespace
}  // namespace gemmtune::conformance
