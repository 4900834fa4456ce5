#include "tuner/problem.hpp"

#include <array>
#include <functional>
#include <limits>
#include <tuple>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

struct OpKindName {
  OpKind op;
  std::string_view name;
};
constexpr std::array kOpKinds{
    OpKindName{OpKind::Gemm, "Gemm"},
    OpKindName{OpKind::GemmAndBias, "GemmAndBias"},
    OpKindName{OpKind::GemmStridedBatched, "GemmStridedBatched"},
    OpKindName{OpKind::ScaledGemm, "ScaledGemm"},
};

// Elements spanned by `batch` matrices of `rows`×`cols` with leading dimension `ld`, or -1 when
// that does not fit in 64 bits.
std::int64_t span_elements(std::int64_t ld, std::int64_t cols, std::int64_t stride,
                           std::int64_t batch) {
  std::int64_t one = 0, rest = 0, total = 0;
  if (__builtin_mul_overflow(ld, cols, &one)) return -1;
  if (__builtin_mul_overflow(stride, batch - 1, &rest)) return -1;
  if (__builtin_add_overflow(one, rest, &total)) return -1;
  return total;
}

}  // namespace

std::string_view to_string(OpKind op) {
  for (const auto& entry : kOpKinds) {
    if (entry.op == op) return entry.name;
  }
  GEMMTUNE_THROW("unknown OpKind value {}", static_cast<int>(op));
}

std::optional<OpKind> op_kind_from_string(std::string_view name) {
  for (const auto& entry : kOpKinds) {
    if (entry.name == name) return entry.op;
  }
  return std::nullopt;
}

char to_char(Transpose t) {
  switch (t) {
    case Transpose::N:
      return 'n';
    case Transpose::T:
      return 't';
    case Transpose::C:
      return 'c';
  }
  GEMMTUNE_THROW("unknown Transpose value {}", static_cast<int>(t));
}

std::optional<Transpose> transpose_from_char(char c) {
  switch (c) {
    case 'n':
    case 'N':
      return Transpose::N;
    case 't':
    case 'T':
      return Transpose::T;
    case 'c':
    case 'C':
      return Transpose::C;
    default:
      return std::nullopt;
  }
}

Problem Problem::make(OpKind op, DType dtype, Transpose ta, Transpose tb, std::int64_t m,
                      std::int64_t n, std::int64_t k) {
  Problem p;
  p.op = op;
  p.transa = ta;
  p.transb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.lda = p.a_rows();
  p.ldb = p.b_rows();
  p.ldc = m;
  p.a_type = p.b_type = p.c_type = dtype;
  return p;
}

std::int64_t Problem::a_elements() const {
  return span_elements(blas_lda(), a_cols(), batch_stride_a(), batch);
}
std::int64_t Problem::b_elements() const {
  return span_elements(blas_ldb(), b_cols(), batch_stride_b(), batch);
}
std::int64_t Problem::c_elements() const {
  return span_elements(blas_ldc(), n, batch_stride_c(), batch);
}

double Problem::flops() const {
  const double scale = info(a_type).is_complex ? 8.0 : 2.0;
  return scale * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
         static_cast<double>(batch);
}

double Problem::bytes() const {
  const double b = static_cast<double>(batch);
  const double a = static_cast<double>(m) * k * element_bytes(a_type);
  const double bb = static_cast<double>(k) * n * element_bytes(b_type);
  const double c = static_cast<double>(m) * n * element_bytes(c_type);
  const double bias =
      has_bias() ? static_cast<double>(m) * element_bytes(bias_type.value_or(c_type)) : 0.0;
  return b * (a + bb + c) + bias;
}

std::optional<std::string> Problem::invalid_reason() const {
  if (m < 1 || n < 1 || k < 1) {
    return fmt::format("sizes must be at least 1 (m={}, n={}, k={})", m, n, k);
  }
  if (batch < 1) return fmt::format("batch must be at least 1 (batch={})", batch);
  if (op != OpKind::GemmStridedBatched && batch != 1) {
    return fmt::format("{} takes no batch (batch={})", to_string(op), batch);
  }
  // A leading dimension only separates columns, so a single-column operand may carry any
  // positive one (PyTorch records ldc=1 for matrix-vector products).
  struct Ld {
    const char* name;
    std::int64_t ld, rows, cols;
  };
  for (const Ld& x : {Ld{"lda", lda, a_rows(), a_cols()}, Ld{"ldb", ldb, b_rows(), b_cols()},
                      Ld{"ldc", ldc, m, n}}) {
    if (x.ld < 1) return fmt::format("{} must be at least 1 ({}={})", x.name, x.name, x.ld);
    // The batch strides and spans below multiply a leading dimension by a column count; signed
    // overflow there would be undefined behaviour (found by the fuzzer in fuzz/), so first this.
    if (std::int64_t product = 0; __builtin_mul_overflow(x.ld, x.cols, &product)) {
      return fmt::format("operand sizes overflow 64-bit element counts ({}={} times {} columns)",
                         x.name, x.ld, x.cols);
    }
    if (x.cols > 1 && x.ld < x.rows) {
      return fmt::format("{}={} is smaller than the {} rows it must span for transposes {}{}",
                         x.name, x.ld, x.rows, to_char(transa), to_char(transb));
    }
  }
  if (stride_a < 0 || stride_b < 0 || stride_c < 0) return std::string("strides must be >= 0");
  // A and B may be shared by the batch (stride 0, or overlapping); the C matrices are written, and
  // where they overlap every solution races with itself and no result can be checked.
  if (batch > 1 && stride_c != 0 && stride_c < blas_ldc() * (n - 1) + m) {
    return fmt::format(
        "stride_c={} makes the batch's C matrices overlap: each spans ldc·(n-1)+m = {} elements",
        stride_c, blas_ldc() * (n - 1) + m);
  }
  if (a_elements() < 0 || b_elements() < 0 || c_elements() < 0) {
    return std::string("operand sizes overflow 64-bit element counts");
  }
  // Byte counts are sums of these in size_t (rotation plans, allocations): bounded here so that
  // none of that arithmetic can wrap, and a plan compares real sizes with the device's memory.
  for (const auto& [name, elements, type] :
       {std::tuple{"A", a_elements(), a_type}, std::tuple{"B", b_elements(), b_type},
        std::tuple{"C", c_elements(), c_type}}) {
    if (elements > kMaxOperandBytes / static_cast<std::int64_t>(element_bytes(type))) {
      return fmt::format("{} spans {} elements of {} bytes: more than 2^60 bytes", name, elements,
                         element_bytes(type));
    }
  }
  if (op != OpKind::ScaledGemm && (a_type != b_type || a_type != c_type)) {
    return fmt::format("{} needs one type for A, B and C", to_string(op));
  }
  if (op != OpKind::ScaledGemm && (rowwise || bias_type)) {
    return fmt::format("row-wise scaling and a bias type belong to ScaledGemm only");
  }
  if ((transa == Transpose::C || transb == Transpose::C) && !info(a_type).is_complex) {
    return std::string("conjugate transpose needs a complex type");
  }
  return std::nullopt;
}

std::size_t hash_value(const Problem& p) noexcept {
  // FNV-1a over the fields: cheap, allocation-free, stable within a process.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (i * 8)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<std::uint64_t>(p.op));
  mix(static_cast<std::uint64_t>(p.transa) << 8 | static_cast<std::uint64_t>(p.transb));
  for (std::int64_t v :
       {p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.batch, p.stride_a, p.stride_b, p.stride_c}) {
    mix(static_cast<std::uint64_t>(v));
  }
  mix(static_cast<std::uint64_t>(p.a_type) | static_cast<std::uint64_t>(p.b_type) << 8 |
      static_cast<std::uint64_t>(p.c_type) << 16);
  mix(static_cast<std::uint64_t>(p.rowwise) |
      (p.bias_type ? (static_cast<std::uint64_t>(*p.bias_type) + 1) << 8 : 0));
  return static_cast<std::size_t>(h);
}

}  // namespace gemmtune
