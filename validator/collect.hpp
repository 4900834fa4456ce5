// Collects the environment a result is measured in: gemmtune's own version and backend, and
// whatever the backend reports (device, runtime, driver, BLAS library versions).
#pragma once

#include "tuner/backend.hpp"
#include "tuner/environment.hpp"

namespace gemmtune {

// Keys gemmtune itself always writes; backends add their own (GPU_NAME, CUBLASLT_VERSION, ...).
inline constexpr std::string_view kGemmtuneVersionKey = "GEMMTUNE_VERSION";
inline constexpr std::string_view kBackendKey = "GEMMTUNE_BACKEND";

std::string_view gemmtune_version();

// gemmtune's keys followed by the backend's versions.
Environment collect_environment(const Backend& backend);

}  // namespace gemmtune
