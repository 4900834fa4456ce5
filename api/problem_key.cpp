#include "api/problem_key.hpp"

#include <optional>

namespace gemmtune::api {
namespace {

// ld × columns: the stride that 0 stands for (Problem::batch_stride_a and its kin). None where the
// product overflows: an invalid problem, which keeps its strides and is refused later with the
// reason.
std::optional<std::int64_t> dense_stride(std::int64_t ld, std::int64_t cols) {
  std::int64_t stride = 0;
  if (__builtin_mul_overflow(ld, cols, &stride)) return std::nullopt;
  return stride;
}

void canonicalise(std::int64_t& stride, std::optional<std::int64_t> dense) {
  if (dense && stride == *dense) stride = 0;
}

}  // namespace

Problem lookup_key(const Problem& problem) noexcept {
  Problem key = problem;
  if (key.batch == 1) {  // one matrix: nothing to stride over
    key.stride_a = key.stride_b = key.stride_c = 0;
    return key;
  }
  canonicalise(key.stride_a, dense_stride(key.blas_lda(), key.a_cols()));
  canonicalise(key.stride_b, dense_stride(key.blas_ldb(), key.b_cols()));
  canonicalise(key.stride_c, dense_stride(key.blas_ldc(), key.n));
  return key;
}

}  // namespace gemmtune::api
