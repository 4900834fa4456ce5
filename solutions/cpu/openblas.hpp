// What the CPU backend needs to know about the OpenBLAS it links: its configuration string (a
// validator: version, core type, threading) and whether it exports a bf16 GEMM.
#pragma once

#include <string>

namespace gemmtune::cpu {

// openblas_get_config(), e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64".
std::string openblas_config_string();
// True when the linked OpenBLAS exports cblas_sbgemm (checked when gemmtune was configured).
bool openblas_has_sbgemm();
// How many threads OpenBLAS runs (OPENBLAS_NUM_THREADS where set: a CPU worker of a multi-device
// run gets its share of the cores that way); the backend's other parallel work takes as many.
int openblas_thread_count();

}  // namespace gemmtune::cpu
