// Problem: one GEMM as a BLAS library sees it, for every kind PyTorch TunableOp records.
//
// C (m×n) = alpha · op(A) (m×k) · op(B) (k×n) + beta · C, column-major, `batch` times with the
// given strides. m, n, k and the transposes are those of the column-major call, exactly as in
// TunableOp's signatures. One value type serves every kind; kind-specific fields (bias, scales)
// are simply unused by the kinds that lack them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tuner/dtype.hpp"

namespace gemmtune {

enum class OpKind { Gemm, GemmAndBias, GemmStridedBatched, ScaledGemm };

// Transpose of an operand in the column-major call; C (conjugate transpose) only for complex.
enum class Transpose { N, T, C };

std::string_view to_string(OpKind op);
std::optional<OpKind> op_kind_from_string(std::string_view name);
inline std::string_view format_as(OpKind op) {
  return to_string(op);
}

char to_char(Transpose t);                             // 'n', 't', 'c'
std::optional<Transpose> transpose_from_char(char c);  // either case
inline char format_as(Transpose t) {
  return to_char(t);
}

struct Problem {
  OpKind op = OpKind::Gemm;
  Transpose transa = Transpose::N;
  Transpose transb = Transpose::N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::int64_t batch = 1;
  // Element strides between consecutive matrices of a batch; 0 means "dense", ld × columns.
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // Storage types; for every kind but ScaledGemm all three are the op's type. TF32 means float32
  // storage with TF32 arithmetic.
  DType a_type = DType::Float32;
  DType b_type = DType::Float32;
  DType c_type = DType::Float32;
  // ScaledGemm only: row-wise scaling, and the bias type (none when there is no bias vector).
  bool rowwise = false;
  std::optional<DType> bias_type;

  // A problem whose three storage types are the same `dtype` (everything but ScaledGemm).
  static Problem make(OpKind op, DType dtype, Transpose ta, Transpose tb, std::int64_t m,
                      std::int64_t n, std::int64_t k);

  bool has_bias() const { return op == OpKind::GemmAndBias || bias_type.has_value(); }
  // The type whose arithmetic the call performs: the op's type, or A's for ScaledGemm.
  DType dtype() const { return a_type; }

  // Rows and columns of the stored operands (column-major, before op()).
  std::int64_t a_rows() const { return transa == Transpose::N ? m : k; }
  std::int64_t a_cols() const { return transa == Transpose::N ? k : m; }
  std::int64_t b_rows() const { return transb == Transpose::N ? k : n; }
  std::int64_t b_cols() const { return transb == Transpose::N ? n : k; }

  // Leading dimensions as BLAS libraries require them (at least the rows). A single-column
  // operand may carry a smaller recorded one (PyTorch writes ldc=1 for matrix-vector products);
  // it addresses the same elements, so the larger value is equivalent and valid.
  std::int64_t blas_lda() const { return a_cols() == 1 && lda < a_rows() ? a_rows() : lda; }
  std::int64_t blas_ldb() const { return b_cols() == 1 && ldb < b_rows() ? b_rows() : ldb; }
  std::int64_t blas_ldc() const { return n == 1 && ldc < m ? m : ldc; }

  std::int64_t batch_stride_a() const { return stride_a != 0 ? stride_a : blas_lda() * a_cols(); }
  std::int64_t batch_stride_b() const { return stride_b != 0 ? stride_b : blas_ldb() * b_cols(); }
  std::int64_t batch_stride_c() const { return stride_c != 0 ? stride_c : blas_ldc() * n; }

  // Elements a buffer must hold for every matrix of the batch, leading dimensions included.
  std::int64_t a_elements() const;
  std::int64_t b_elements() const;
  std::int64_t c_elements() const;
  std::int64_t bias_elements() const { return has_bias() ? m : 0; }

  // Floating-point operations: 2·m·n·k·batch (four times that for complex types).
  double flops() const;
  // The fewest bytes the call must move: A and B read once, C written once (read too when
  // beta may be non-zero), and the bias.
  double bytes() const;

  // The most bytes one operand may span (2^60, far beyond any device): what keeps the byte
  // arithmetic of rotation plans and allocations from wrapping.
  static constexpr std::int64_t kMaxOperandBytes = std::int64_t{1} << 60;

  // Empty when the problem is well formed; otherwise what is wrong, for a person.
  std::optional<std::string> invalid_reason() const;

  // TunableOp's two signatures, byte for byte as PyTorch writes them.
  std::string op_signature() const;
  std::string params_signature() const;

  friend bool operator==(const Problem&, const Problem&) = default;
};

// Parses TunableOp's signatures into a Problem; throws InputError explaining what is wrong
// (the caller adds file and line).
Problem parse_problem(std::string_view op_signature, std::string_view params_signature);

std::size_t hash_value(const Problem& problem) noexcept;

struct ProblemHash {
  std::size_t operator()(const Problem& p) const noexcept { return hash_value(p); }
};

}  // namespace gemmtune
