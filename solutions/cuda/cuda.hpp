// gemmtune's CUDA backend, as a table of contents.
#pragma once

#include "solutions/cuda/cublas_default.hpp"          // "cublas" provider: Default
#include "solutions/cuda/cublaslt_algo_name.hpp"      // Gemm_Cublaslt_... names
#include "solutions/cuda/cublaslt_heuristic_top.hpp"  // the heuristic's best-fit top N, as ranked
#include "solutions/cuda/cublaslt_provider.hpp"  // "cublaslt" provider: search space, from_name
#include "solutions/cuda/cuda_backend.hpp"       // CudaBackend: devices, buffers, events, versions
#include "solutions/cuda/cuda_check.hpp"         // GEMMTUNE_CUDA_CHECK, GEMMTUNE_CUBLAS_CHECK
#include "solutions/cuda/cuda_device.hpp"        // cuda_device_count, cuda_sticky_error
#include "solutions/cuda/register_cuda.hpp"      // register_cuda_solutions
