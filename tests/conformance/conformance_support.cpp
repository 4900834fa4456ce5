#include "conformance_support.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "host_reference.hpp"
#include "tuner/error.hpp"
#include "tuner/operand_sets.hpp"

namespace gemmtune::conformance {
namespace {

using Complex = std::complex<double>;
using test_support::as_complex;
using test_support::op_element;

std::size_t bytes_of(std::int64_t elements, DType dtype) {
  return static_cast<std::size_t>(elements) * element_bytes(dtype);
}

// cuBLASLt has no e5m2 × e5m2 kernel, and neither does PyTorch's _scaled_mm: e5m2 is paired with
// e4m3 of the same family (gradients × weights).
DType fp8_partner(DType dtype) {
  switch (dtype) {
    case DType::Float8E5M2:
      return DType::Float8E4M3;
    case DType::Float8E5M2Fnuz:
      return DType::Float8E4M3Fnuz;
    default:
      return dtype;
  }
}

Problem scaled_gemm(DType dtype, std::int64_t m, std::int64_t n, std::int64_t k, DType c_type) {
  Problem p = Problem::make(OpKind::ScaledGemm, dtype, Transpose::T, Transpose::N, m, n, k);
  p.b_type = fp8_partner(dtype);
  p.c_type = c_type;
  return p;
}

bool same_value(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

}  // namespace

bool has_surrounding_space(std::string_view text) {
  return !text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                           std::isspace(static_cast<unsigned char>(text.back())));
}

bool breaks_a_csv_field(std::string_view text) {
  return text.find_first_of(",\r\n") != std::string_view::npos;
}

std::string GemmCase::describe() const {
  return fmt::format("{},{} alpha={} beta={}", problem.op_signature(), problem.params_signature(),
                     alpha, beta);
}

std::vector<GemmCase> gemm_cases(DType dtype) {
  std::vector<GemmCase> cases;
  if (info(dtype).is_float8) {
    cases.push_back({scaled_gemm(dtype, 64, 32, 64, DType::BFloat16)});
    GemmCase with_bias{scaled_gemm(dtype, 64, 32, 64, DType::BFloat16)};
    with_bias.problem.bias_type = DType::BFloat16;
    with_bias.required = false;
    cases.push_back(with_bias);
    return cases;
  }
  const bool complex = info(dtype).is_complex;

  // Leading dimensions past the rows, so that ld and rows are told apart; beta != 0 makes C an
  // input as well.
  Problem padded = Problem::make(OpKind::Gemm, dtype, Transpose::N, Transpose::N, 37, 23, 29);
  padded.lda = 40;
  padded.ldb = 32;
  padded.ldc = 40;
  cases.push_back({padded, 0.75, 0.5});

  Problem transposed = Problem::make(OpKind::Gemm, dtype, complex ? Transpose::C : Transpose::T,
                                     complex ? Transpose::T : Transpose::N, 32, 16, 40);
  transposed.lda += 8;
  cases.push_back({transposed});

  Problem batched =
      Problem::make(OpKind::GemmStridedBatched, dtype, Transpose::N, Transpose::T, 24, 20, 16);
  batched.batch = 3;
  batched.stride_c = batched.ldc * batched.n + 8;  // gaps between the matrices of C
  cases.push_back({batched});

  GemmCase bias{Problem::make(OpKind::GemmAndBias, dtype, Transpose::N, Transpose::N, 48, 16, 32)};
  bias.required = false;
  cases.push_back(bias);
  return cases;
}

Problem tuning_problem(DType dtype) {
  if (info(dtype).is_float8) return scaled_gemm(dtype, 64, 32, 64, DType::BFloat16);
  // tn, as PyTorch's linear layers record it; n = 16 fits the skinny kernels too.
  return Problem::make(OpKind::Gemm, dtype, Transpose::T, Transpose::N, 64, 16, 48);
}

Problem padded_output_problem(DType dtype) {
  if (info(dtype).is_float8) {
    Problem p = scaled_gemm(dtype, 40, 16, 32, dtype);
    p.ldc = 48;
    return p;
  }
  Problem p =
      Problem::make(OpKind::GemmStridedBatched, dtype, Transpose::N, Transpose::N, 37, 11, 8);
  p.ldc = 40;
  p.batch = 2;
  p.stride_c = p.ldc * p.n + 13;
  return p;
}

bool written_by_gemm(const Problem& p, std::int64_t index) {
  const std::int64_t stride = p.batch_stride_c();
  const std::int64_t batch = p.batch > 1 ? index / stride : 0;
  const std::int64_t within = index - batch * stride;
  if (batch >= p.batch) return false;
  const std::int64_t ldc = p.blas_ldc();
  return within % ldc < p.m && within / ldc < p.n;
}

DeviceGemm::DeviceGemm(Backend& backend, const GemmCase& gemm, std::size_t workspace_bytes,
                       std::uint64_t seed)
    : backend_(backend), problem_(gemm.problem), alpha_(gemm.alpha), beta_(gemm.beta), seed_(seed) {
  const Problem& p = problem_;
  const DType bias_type = p.bias_type.value_or(p.c_type);
  a_ = backend_.allocate(bytes_of(p.a_elements(), p.a_type));
  backend_.fill_random(*a_, p.a_type, p.a_elements(), seed_ * 4 + 1);
  b_ = backend_.allocate(bytes_of(p.b_elements(), p.b_type));
  backend_.fill_random(*b_, p.b_type, p.b_elements(), seed_ * 4 + 2);
  c_ = backend_.allocate(bytes_of(p.c_elements(), p.c_type));
  reset_c();
  if (p.has_bias()) {
    bias_ = backend_.allocate(bytes_of(p.m, bias_type));
    backend_.fill_random(*bias_, bias_type, p.m, seed_ * 4 + 4);
  }
  const std::int64_t scales_a = p.rowwise ? p.m : 1, scales_b = p.rowwise ? p.n : 1;
  if (p.op == OpKind::ScaledGemm) {
    scale_a_ = backend_.allocate(bytes_of(scales_a, DType::Float32));
    scale_b_ = backend_.allocate(bytes_of(scales_b, DType::Float32));
    backend_.fill_bytes(*scale_a_, 0x3F);
    backend_.fill_bytes(*scale_b_, 0x3F);
  }
  if (workspace_bytes > 0) workspace_ = backend_.allocate(workspace_bytes);
  backend_.synchronize();

  // The host's copy of every input, as the backend holds it.
  const auto a = as_complex(backend_.read_as_double(*a_, p.a_type, p.a_elements()), p.a_type);
  const auto b = as_complex(backend_.read_as_double(*b_, p.b_type, p.b_elements()), p.b_type);
  initial_c_ = backend_.read_as_double(*c_, p.c_type, p.c_elements());
  const auto c0 = as_complex(initial_c_, p.c_type);
  std::vector<Complex> bias;
  if (bias_) bias = as_complex(backend_.read_as_double(*bias_, bias_type, p.m), bias_type);
  std::vector<double> scale_a{1.0}, scale_b{1.0};
  if (scale_a_) {
    scale_a = backend_.read_as_double(*scale_a_, DType::Float32, scales_a);
    scale_b = backend_.read_as_double(*scale_b_, DType::Float32, scales_b);
  }

  const bool complex = info(p.c_type).is_complex;
  expected_ = initial_c_;
  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const std::int64_t oa = batch * p.batch_stride_a(), ob = batch * p.batch_stride_b(),
                       oc = batch * p.batch_stride_c();
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        Complex sum = 0;
        for (std::int64_t l = 0; l < p.k; ++l) {
          sum += op_element(a, p.transa, p.blas_lda(), oa, i, l) *
                 op_element(b, p.transb, p.blas_ldb(), ob, l, j);
        }
        const double scale = alpha_ * scale_a[static_cast<std::size_t>(p.rowwise ? i : 0)] *
                             scale_b[static_cast<std::size_t>(p.rowwise ? j : 0)];
        const std::int64_t at = oc + i + j * p.blas_ldc();
        Complex value = scale * sum;
        if (beta_ != 0) value += beta_ * c0[static_cast<std::size_t>(at)];
        if (!bias.empty()) value += bias[static_cast<std::size_t>(i)];
        if (complex) {
          expected_[static_cast<std::size_t>(2 * at)] = value.real();
          expected_[static_cast<std::size_t>(2 * at + 1)] = value.imag();
        } else {
          expected_[static_cast<std::size_t>(at)] = value.real();
        }
      }
    }
  }
}

void DeviceGemm::reset_c() {
  const Problem& p = problem_;
  if (beta_ != 0) {
    backend_.fill_random(*c_, p.c_type, p.c_elements(), seed_ * 4 + 3);
  } else {
    backend_.fill_bytes(*c_, poison_byte(p.c_type));
  }
}

Operands DeviceGemm::operands() const {
  Operands o;
  o.a = a_->data();
  o.b = b_->data();
  o.c = c_->data();
  o.bias = bias_ ? bias_->data() : nullptr;
  o.scale_a = scale_a_ ? static_cast<const float*>(scale_a_->data()) : nullptr;
  o.scale_b = scale_b_ ? static_cast<const float*>(scale_b_->data()) : nullptr;
  if (workspace_) {
    o.workspace = workspace_->data();
    o.workspace_bytes = workspace_->bytes();
  }
  o.alpha = alpha_;
  o.beta = beta_;
  return o;
}

std::vector<double> DeviceGemm::read_c() {
  backend_.synchronize();
  return backend_.read_as_double(*c_, problem_.c_type, problem_.c_elements());
}

std::string DeviceGemm::written_outside(std::span<const double> c) const {
  const int parts = info(problem_.c_type).is_complex ? 2 : 1;
  std::string out;
  int changed = 0;
  for (std::int64_t e = 0; e < problem_.c_elements(); ++e) {
    if (written_by_gemm(problem_, e)) continue;
    for (int part = 0; part < parts; ++part) {
      const auto at = static_cast<std::size_t>(e * parts + part);
      if (same_value(c[at], initial_c_[at])) continue;
      if (++changed <= 3) {
        out += fmt::format("C element {} outside m×n changed from {} to {}; ", e, initial_c_[at],
                           c[at]);
      }
    }
  }
  if (changed > 3) out += fmt::format("{} values in all", changed);
  return out;
}

}  // namespace gemmtune::conformance
