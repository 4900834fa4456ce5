#include "drivers/backend_factory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "solutions/cpu/cpu_backend.hpp"
#include "solutions/cpu/register_cpu.hpp"
#include "tuner/error.hpp"
#ifdef GEMMTUNE_HAVE_CUDA
#include "solutions/cuda/cuda_backend.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/register_cuda.hpp"
#endif

namespace gemmtune {

namespace {
constexpr const char* kBuiltWithoutCuda =
    "the CUDA backend: this gemmtune was built without CUDA (GEMMTUNE_WITH_CUDA=OFF)";
}  // namespace

BackendKind parse_backend_kind(std::string_view text) {
  if (text == "auto") return BackendKind::Auto;
  if (text == "cpu") return BackendKind::Cpu;
  if (text == "cuda") return BackendKind::Cuda;
  throw InputError(fmt::format("unknown backend '{}' (expected auto, cpu or cuda)", text));
}

std::string_view to_string(BackendKind kind) {
  switch (kind) {
    case BackendKind::Auto:
      return "auto";
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::Cuda:
      return "cuda";
  }
  return "?";
}

bool cuda_available() {
#ifdef GEMMTUNE_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

std::string device_name(BackendKind kind, int ordinal) {
  kind = resolve_backend_kind(kind);
  if (kind == BackendKind::Cpu) return cpu::cpu_model_name();
#ifdef GEMMTUNE_HAVE_CUDA
  cudaDeviceProp prop{};
  if (ordinal < 0 || ordinal >= cuda_device_count() ||
      cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    return {};
  }
  return prop.name;
#else
  (void)ordinal;
  return {};
#endif
}

BackendProviders providers_of(BackendKind kind) {
  kind = resolve_backend_kind(kind);
  BackendProviders out{std::string(to_string(kind)), std::make_shared<Registry>()};
  if (kind == BackendKind::Cpu) {
    register_cpu_solutions(*out.registry);
  } else {
#ifdef GEMMTUNE_HAVE_CUDA
    register_cuda_solutions(*out.registry);
#endif
  }
  return out;
}

BackendKind resolve_backend_kind(BackendKind kind) {
  if (kind != BackendKind::Auto) return kind;
  return cuda_available() ? BackendKind::Cuda : BackendKind::Cpu;
}

BackendSession open_backend(BackendKind kind, int ordinal, CurrentDevice current) {
  BackendSession session;
  session.registry = std::make_shared<Registry>();
  const BackendKind asked = kind;
  kind = resolve_backend_kind(kind);
  if (kind == BackendKind::Cpu) {
    // Asking for a GPU by number on a machine without one must not quietly tune the CPU.
    if (ordinal != 0) {
      throw InputError(fmt::format("device {}: the CPU backend has one device, 0{}", ordinal,
                                   asked == BackendKind::Auto
                                       ? " (--backend auto chose the CPU: no CUDA GPU is visible)"
                                       : ""));
    }
    session.backend = std::make_unique<cpu::CpuBackend>();
    register_cpu_solutions(*session.registry);
    return session;
  }
#ifdef GEMMTUNE_HAVE_CUDA
  require_devices(BackendKind::Cuda, {ordinal});
  {
    // CudaBackend makes its device current; with Callers this scope puts the caller's back.
    std::optional<cuda::ScopedDevice> keep_callers;
    if (current == CurrentDevice::Callers) keep_callers.emplace(ordinal);
    session.backend = std::make_unique<CudaBackend>(ordinal);
  }
  register_cuda_solutions(*session.registry);
  return session;
#else
  (void)ordinal;
  (void)current;
  throw InputError(kBuiltWithoutCuda);
#endif
}

void require_devices(BackendKind kind, const std::vector<int>& ordinals) {
  if (resolve_backend_kind(kind) != BackendKind::Cuda) return;
#ifdef GEMMTUNE_HAVE_CUDA
  const int count = cuda_device_count();
  if (count == 0) throw InputError("the CUDA backend: no CUDA GPU is visible on this machine");
  std::vector<int> missing;
  std::copy_if(ordinals.begin(), ordinals.end(), std::back_inserter(missing),
               [count](int ordinal) { return ordinal < 0 || ordinal >= count; });
  if (missing.empty()) return;
  const std::string asked =
      ordinals.size() > 1 ? fmt::format(" (of devices {})", fmt::join(ordinals, ",")) : "";
  throw InputError(fmt::format("device{} {}{}: this machine has {} CUDA GPU(s), 0 to {}",
                               missing.size() > 1 ? "s" : "", fmt::join(missing, ","), asked, count,
                               count - 1));
#else
  (void)ordinals;
  throw InputError(kBuiltWithoutCuda);
#endif
}

}  // namespace gemmtune
