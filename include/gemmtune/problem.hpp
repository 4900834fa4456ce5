// gemmtune/problem.hpp — describing a GEMM.
//
// `gemmtune::Problem` is one value type for every GEMM kind PyTorch TunableOp records (Gemm,
// GemmAndBias, GemmStridedBatched, ScaledGemm): op kind, transposes, m, n, k, leading dimensions,
// batch and strides, dtypes. m, n, k and the transposes are those of the column-major BLAS call.
//
//   auto p = gemmtune::Problem::make(gemmtune::OpKind::Gemm, gemmtune::DType::BFloat16,
//                                    gemmtune::Transpose::T, gemmtune::Transpose::N, m, n, k);
//   auto q = gemmtune::parse_problem("GemmTunableOp_BFloat16_TN", "tn_1536_16_7168_ld_7168_7168_1536");
//
// This header re-exports the engine's own definition (tuner/problem.hpp, installed under
// include/gemmtune/detail), so an application and the engine share one type and no conversion
// happens on the hot path.
#pragma once

#include "tuner/dtype.hpp"    // IWYU pragma: export
#include "tuner/problem.hpp"  // IWYU pragma: export
