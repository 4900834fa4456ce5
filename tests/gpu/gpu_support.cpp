#include "gpu_support.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "host_reference.hpp"
#include "solutions/cuda/cuda_check.hpp"

namespace gemmtune::gpu_test {
namespace {

using test_support::as_complex;
using test_support::op_element;

std::vector<Complex> fill_and_read(CudaBackend& backend, Buffer& buffer, DType dtype,
                                   std::int64_t elements, std::uint64_t seed) {
  backend.fill_random(buffer, dtype, elements, seed);
  return as_complex(backend.read_as_double(buffer, dtype, elements), dtype);
}

std::unique_ptr<Buffer> upload_floats(CudaBackend& backend, const std::vector<double>& values) {
  std::vector<float> f(values.begin(), values.end());
  auto buffer = backend.allocate(f.size() * sizeof(float));
  GEMMTUNE_CUDA_CHECK(
      cudaMemcpy(buffer->data(), f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
  return buffer;
}

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::Float64:
    case DType::ComplexFloat64:
      return std::ldexp(1.0, -53);
    case DType::Float32:
    case DType::TF32:
    case DType::ComplexFloat32:
      return std::ldexp(1.0, -24);
    case DType::Float16:
      return std::ldexp(1.0, -11);
    case DType::BFloat16:
      return std::ldexp(1.0, -8);
    case DType::Float8E4M3:
    case DType::Float8E4M3Fnuz:
      return std::ldexp(1.0, -4);
    case DType::Float8E5M2:
    case DType::Float8E5M2Fnuz:
      return std::ldexp(1.0, -3);
  }
  return 1.0;
}

struct Tolerance {
  double element;
  double frobenius;
};

Tolerance tolerance(const Problem& p) {
  const bool fp64 = p.a_type == DType::Float64 || p.a_type == DType::ComplexFloat64;
  // Hopper's fp8 tensor cores keep about 13 mantissa bits in their accumulators.
  const double u_acc = fp64                       ? std::ldexp(1.0, -53)
                       : info(p.a_type).is_float8 ? std::ldexp(1.0, -13)
                                                  : std::ldexp(1.0, -24);
  const double u_in = p.a_type == DType::TF32 ? std::ldexp(1.0, -11) : 0.0;
  const double u_out = unit_roundoff(p.c_type);
  const double k = static_cast<double>(p.k);
  return {2 * u_in + (k + 2) * u_acc + 2 * u_out + 1e-300,
          4 * (u_in + u_out) + 4 * std::sqrt(k) * u_acc + 1e-15};
}

}  // namespace

DeviceOperands::DeviceOperands(CudaBackend& be, const Problem& p, double alpha_, double beta_,
                               std::uint64_t seed)
    : backend(be), problem(p), alpha(alpha_), beta(beta_) {
  const std::size_t a_bytes = static_cast<std::size_t>(p.a_elements()) * element_bytes(p.a_type);
  const std::size_t b_bytes = static_cast<std::size_t>(p.b_elements()) * element_bytes(p.b_type);
  const std::size_t c_bytes = static_cast<std::size_t>(p.c_elements()) * element_bytes(p.c_type);
  a = backend.allocate(a_bytes);
  b = backend.allocate(b_bytes);
  c = backend.allocate(c_bytes);
  c0 = backend.allocate(c_bytes);
  host_a = fill_and_read(backend, *a, p.a_type, p.a_elements(), seed);
  host_b = fill_and_read(backend, *b, p.b_type, p.b_elements(), seed + 1);
  host_c0 = fill_and_read(backend, *c0, p.c_type, p.c_elements(), seed + 2);
  if (p.has_bias()) {
    const DType bias_type = p.bias_type.value_or(p.c_type);
    bias = backend.allocate(static_cast<std::size_t>(p.m) * element_bytes(bias_type));
    host_bias = fill_and_read(backend, *bias, bias_type, p.m, seed + 3);
  }
  if (p.op == OpKind::ScaledGemm) {
    // Scales away from 1 so that a solution ignoring them shows.
    if (p.rowwise) {
      for (std::int64_t i = 0; i < p.m; ++i) host_scale_a.push_back(0.5 + 0.25 * (i % 4));
      for (std::int64_t j = 0; j < p.n; ++j) host_scale_b.push_back(0.75 - 0.125 * (j % 3));
    } else {
      host_scale_a = {0.5};
      host_scale_b = {0.75};
    }
    scale_a = upload_floats(backend, host_scale_a);
    scale_b = upload_floats(backend, host_scale_b);
  }
  workspace = backend.allocate(SearchOptions{}.max_workspace_bytes);
  backend.synchronize();
}

void DeviceOperands::reset_c() {
  if (beta != 0.0) {
    backend.copy(*c, *c0, c->bytes());
  } else {
    backend.fill_bytes(*c, 0xff);  // NaN in every floating-point type
  }
}

Operands DeviceOperands::operands() const {
  Operands o;
  o.a = a->data();
  o.b = b->data();
  o.c = c->data();
  o.bias = bias ? bias->data() : nullptr;
  o.scale_a = scale_a ? static_cast<const float*>(scale_a->data()) : nullptr;
  o.scale_b = scale_b ? static_cast<const float*>(scale_b->data()) : nullptr;
  o.workspace = workspace->data();
  o.workspace_bytes = workspace->bytes();
  o.alpha = alpha;
  o.beta = beta;
  return o;
}

std::vector<Complex> DeviceOperands::read_c() {
  return as_complex(backend.read_as_double(*c, problem.c_type, problem.c_elements()),
                    problem.c_type);
}

std::vector<std::int64_t> sampled_rows(std::int64_t m) {
  std::vector<std::int64_t> rows;
  constexpr std::int64_t kSamples = 40;
  if (m <= kSamples) {
    for (std::int64_t i = 0; i < m; ++i) rows.push_back(i);
    return rows;
  }
  for (std::int64_t s = 0; s < kSamples; ++s) rows.push_back(s * (m - 1) / (kSamples - 1));
  return rows;
}

const std::vector<DeviceOperands::Expected>& DeviceOperands::expected() const {
  if (!expected_.empty()) return expected_;
  const Problem& p = problem;
  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const std::int64_t oa = batch * p.batch_stride_a(), ob = batch * p.batch_stride_b(),
                       oc = batch * p.batch_stride_c();
    for (std::int64_t i : sampled_rows(p.m)) {
      for (std::int64_t j = 0; j < p.n; ++j) {
        Complex sum = 0;
        double abs_sum = 0;
        for (std::int64_t l = 0; l < p.k; ++l) {
          const Complex prod = op_element(host_a, p.transa, p.lda, oa, i, l) *
                               op_element(host_b, p.transb, p.ldb, ob, l, j);
          sum += prod;
          abs_sum += std::abs(prod);
        }
        double scale = alpha;
        if (p.op == OpKind::ScaledGemm) {
          scale *= host_scale_a[p.rowwise ? static_cast<std::size_t>(i) : 0] *
                   host_scale_b[p.rowwise ? static_cast<std::size_t>(j) : 0];
        }
        const std::size_t at = static_cast<std::size_t>(oc + i + j * p.ldc);
        Complex ref = scale * sum;
        double magnitude = std::abs(scale) * abs_sum;
        if (beta != 0.0) {
          ref += beta * host_c0[at];
          magnitude += std::abs(beta * host_c0[at]);
        }
        if (p.has_bias()) {
          ref += host_bias[static_cast<std::size_t>(i)];
          magnitude += std::abs(host_bias[static_cast<std::size_t>(i)]);
        }
        expected_.push_back({at, ref, magnitude, batch, i, j});
      }
    }
  }
  return expected_;
}

Comparison compare_with_reference(const DeviceOperands& ops, const std::vector<Complex>& c) {
  const Tolerance tol = tolerance(ops.problem);
  Comparison result;
  double err2 = 0, ref2 = 0;
  for (const auto& e : ops.expected()) {
    const double err = std::abs(c[e.at] - e.value);
    const double ratio = err / (tol.element * e.magnitude + 1e-300);
    err2 += err * err;
    ref2 += std::norm(e.value);
    if (!(ratio <= result.worst_ratio)) {  // NaN always becomes the worst
      result.worst_ratio = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
      result.detail =
          fmt::format("batch {} C({},{}) = {}{:+}i, reference {}{:+}i", e.batch, e.row, e.col,
                      c[e.at].real(), c[e.at].imag(), e.value.real(), e.value.imag());
    }
  }
  result.frobenius = std::sqrt(err2 / (ref2 + 1e-300));
  result.ok = result.worst_ratio <= 1.0 && result.frobenius <= tol.frobenius;
  if (!result.ok) {
    result.detail = fmt::format(
        "worst error {:.3g} of allowed, relative Frobenius {:.3g} (allowed "
        "{:.3g}); {}",
        result.worst_ratio, result.frobenius, tol.frobenius, result.detail);
  }
  return result;
}

std::string run_and_check(Solution& solution, DeviceOperands& ops) {
  return run_and_check(solution, ops, ops.operands());
}

std::string run_and_check(Solution& solution, DeviceOperands& ops, const Operands& inputs) {
  ops.reset_c();
  const RunStatus status = solution.run(ops.problem, inputs, ops.backend.stream());
  ops.backend.synchronize();
  if (!status) return "run failed: " + status.error;
  const Comparison cmp = compare_with_reference(ops, ops.read_c());
  return cmp.ok ? std::string() : cmp.detail;
}

char* shifted_copy(CudaBackend& backend, const void* source, std::size_t bytes, std::size_t offset,
                   std::unique_ptr<Buffer>& storage) {
  storage = backend.allocate(bytes + 256);
  char* copy = static_cast<char*>(storage->data()) + offset;
  GEMMTUNE_CUDA_CHECK(cudaMemcpy(copy, source, bytes, cudaMemcpyDeviceToDevice));
  return copy;
}

void shift_operand(DeviceOperands& ops, Operands& inputs, const std::string& what,
                   std::size_t offset, ShiftedStorage& storage) {
  const auto copy = [&](const Buffer& source, std::unique_ptr<Buffer>& owner) {
    return shifted_copy(ops.backend, source.data(), source.bytes(), offset, owner);
  };
  if (what == "scales") {
    inputs.scale_a = reinterpret_cast<const float*>(copy(*ops.scale_a, storage.first));
    inputs.scale_b = reinterpret_cast<const float*>(copy(*ops.scale_b, storage.second));
  } else if (what == "A") {
    inputs.a = copy(*ops.a, storage.first);
  } else if (what == "B") {
    inputs.b = copy(*ops.b, storage.first);
  } else if (what == "bias") {
    inputs.bias = copy(*ops.bias, storage.first);
  } else {
    throw std::invalid_argument("shift_operand: no operand named " + what);
  }
}

}  // namespace gemmtune::gpu_test
