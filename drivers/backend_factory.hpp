// Choosing a backend: `auto` picks CUDA where a GPU is present and the CPU otherwise. The
// registry that comes with it holds the providers of that backend's solutions, registered by the
// backend's own registration function, plus any the caller adds.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/registry.hpp"

namespace gemmtune {

enum class BackendKind { Auto, Cpu, Cuda };

// "auto", "cpu", "cuda"; throws InputError naming the accepted values.
BackendKind parse_backend_kind(std::string_view text);
std::string_view to_string(BackendKind kind);

// The providers the CUDA backend registers, in its order. Known to a build without CUDA too, so
// that asking for one there says what the build lacks instead of calling the name unknown.
inline constexpr std::array<std::string_view, 3> kCudaProviderNames = {"cublas", "cublaslt",
                                                                       "gemmtune_cuda"};

// Whether this build has the CUDA backend and a usable GPU.
bool cuda_available();

// `Auto` as it resolves here: CUDA where a GPU is present, else the CPU; other kinds unchanged.
BackendKind resolve_backend_kind(BackendKind kind);

struct BackendSession {
  std::unique_ptr<Backend> backend;
  std::shared_ptr<Registry> registry;
};

// The name of device `ordinal` of a backend (auto: CUDA where a GPU is present), as its
// properties would give it, without opening the backend; "" where it cannot be told (CUDA not
// built or no such device). Cheap: for choosing a device's configuration before a run.
std::string device_name(BackendKind kind, int ordinal = 0);

// The providers of a backend, registered without opening a device (to check names before
// worker processes start). `Auto` resolves as in open_backend; the name is DeviceProperties'.
struct BackendProviders {
  std::string backend;
  std::shared_ptr<Registry> registry;
};
BackendProviders providers_of(BackendKind kind);

// Whose device the calling thread is left on once a backend is open.
enum class CurrentDevice {
  Backend,  // the backend's: a command-line run, which works on one device from one thread
  Callers,  // the one it was on: a library inside an application, which then holds
            // Backend::make_current() around what it asks of the providers
};

// Opens the backend on device `ordinal` and registers its solutions. Asking for CUDA where it
// is missing (not built, no driver, no GPU) is an InputError saying which, and so is an ordinal
// other than 0 on the CPU backend, which has one device.
BackendSession open_backend(BackendKind kind, int ordinal = 0,
                            CurrentDevice current = CurrentDevice::Backend);

// The devices of a multi-device run, checked before any worker process starts: on CUDA each
// ordinal must be one of this machine's GPUs (else an InputError naming those missing and what
// the machine has, as open_backend would say in each worker); on the CPU, whose workers play
// devices by number, any ordinal goes.
void require_devices(BackendKind kind, const std::vector<int>& ordinals);

}  // namespace gemmtune
