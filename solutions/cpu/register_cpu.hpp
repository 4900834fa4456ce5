// Registers the CPU backend's solution providers: "cpu" (Default and the blocked kernels) and
// "openblas". Each provider's from_name rebuilds any of its solutions from the stored name.
#pragma once

#include <memory>

#include "tuner/registry.hpp"

namespace gemmtune::cpu {

std::shared_ptr<SolutionProvider> make_cpu_provider();
std::shared_ptr<SolutionProvider> make_openblas_provider();

}  // namespace gemmtune::cpu

namespace gemmtune {

void register_cpu_solutions(Registry& registry);

}  // namespace gemmtune
