// Registers the CUDA solutions with a Registry: the "cublas" provider (Default) and the
// "cublaslt" provider (the heuristic's algorithms, their variants and, on request, the exhaustive
// space), both for the backend "cuda".
#pragma once

#include "tuner/registry.hpp"

namespace gemmtune {

void register_cuda_solutions(Registry& registry);

}  // namespace gemmtune
