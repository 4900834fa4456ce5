#include "tuner/operand_sets.hpp"

#include <algorithm>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

std::int64_t slice_elements(std::int64_t elements, DType dtype) {
  const std::size_t size = element_bytes(dtype);
  return static_cast<std::int64_t>(slice_bytes(static_cast<std::size_t>(elements) * size) / size);
}

std::size_t bytes_of(std::int64_t elements, DType dtype) {
  return static_cast<std::size_t>(elements) * element_bytes(dtype);
}

DType bias_dtype(const Problem& p) {
  return p.bias_type.value_or(p.c_type);
}

// ScaledGemm scales: one float per tensor, or one per row of A (m) / column of B (n) row-wise.
std::int64_t scale_a_elements(const Problem& p) {
  return p.rowwise ? p.m : 1;
}
std::int64_t scale_b_elements(const Problem& p) {
  return p.rowwise ? p.n : 1;
}

// 0x3F in every byte of a float is 0.747: positive, not a power of two, so that a candidate that
// ignores or squares a scale is caught by the numerical check.
constexpr unsigned char kScaleByte = 0x3F;

// Placement p > 0 fills its copies from the seeds of placement 0 xor p times this (the golden
// ratio's bits), so that no two placements hold the same values.
constexpr std::uint64_t kPlacementSeedStep = 0x9E3779B97F4A7C15ull;

}  // namespace

unsigned char poison_byte(DType dtype) {
  // 0xFF..FF is a NaN in IEEE formats and in e4m3fn; the fnuz fp8 formats have one NaN, 0x80.
  return dtype == DType::Float8E4M3Fnuz || dtype == DType::Float8E5M2Fnuz ? 0x80 : 0xFF;
}

std::size_t OperandSets::set_bytes(const Problem& p) {
  std::size_t total = slice_bytes(bytes_of(p.a_elements(), p.a_type)) +
                      slice_bytes(bytes_of(p.b_elements(), p.b_type)) +
                      slice_bytes(bytes_of(p.c_elements(), p.c_type));
  if (p.has_bias()) total += slice_bytes(bytes_of(p.bias_elements(), bias_dtype(p)));
  return total;
}

std::size_t OperandSets::fixed_bytes(const Problem& p) {
  // The check C, and the references (tuned scalars, the check's other scalars) a backend that
  // compares on the device keeps beside it.
  std::size_t total = 3 * slice_bytes(bytes_of(p.c_elements(), p.c_type));
  if (p.op == OpKind::ScaledGemm) {
    total += slice_bytes(sizeof(float) * static_cast<std::size_t>(scale_a_elements(p))) +
             slice_bytes(sizeof(float) * static_cast<std::size_t>(scale_b_elements(p)));
  }
  return total;
}

OperandSets::OperandSets(Backend& backend, const Problem& problem, const RotationPlan& plan,
                         std::size_t workspace_bytes, std::uint64_t seed, double alpha, double beta)
    : backend_(backend), problem_(problem), seed_(seed), alpha_(alpha), beta_(beta) {
  GEMMTUNE_EXPECT(plan.fits && plan.copies >= 1, "a rotation plan that fits ({})", plan.describe());
  copies_ = plan.copies;
  const auto& p = problem_;
  slice_a_ = slice_elements(p.a_elements(), p.a_type);
  slice_b_ = slice_elements(p.b_elements(), p.b_type);
  slice_c_ = slice_elements(p.c_elements(), p.c_type);
  placements_ = std::clamp(plan.placements, 1, copies_);
  if (p.has_bias()) slice_bias_ = slice_elements(p.bias_elements(), bias_dtype(p));

  // Each placement is an allocation per operand holding every placements_-th copy. Distinct seeds
  // per operand so that A and B never hold the same values, and per placement; placement 0 has
  // the seeds the check C's reset uses.
  for (int placement = 0; placement < placements_; ++placement) {
    const auto n = static_cast<std::int64_t>((copies_ - placement + placements_ - 1) / placements_);
    auto seed_of = [&](std::uint64_t operand) {
      return (seed_ * 4 + operand) ^ (static_cast<std::uint64_t>(placement) * kPlacementSeedStep);
    };
    a_.push_back(backend_.allocate(bytes_of(slice_a_ * n, p.a_type)));
    backend_.fill_random(*a_.back(), p.a_type, slice_a_ * n, seed_of(1));
    b_.push_back(backend_.allocate(bytes_of(slice_b_ * n, p.b_type)));
    backend_.fill_random(*b_.back(), p.b_type, slice_b_ * n, seed_of(2));
    c_.push_back(backend_.allocate(bytes_of(slice_c_ * n, p.c_type)));
    if (beta_ != 0) {
      backend_.fill_random(*c_.back(), p.c_type, slice_c_ * n, seed_of(3));
    } else {
      backend_.fill_bytes(*c_.back(), poison_byte(p.c_type));
    }
    if (p.has_bias()) {
      bias_.push_back(backend_.allocate(bytes_of(slice_bias_ * n, bias_dtype(p))));
      backend_.fill_random(*bias_.back(), bias_dtype(p), slice_bias_ * n, seed_of(4));
    }
  }
  if (p.op == OpKind::ScaledGemm) {
    scale_a_ = backend_.allocate(sizeof(float) * static_cast<std::size_t>(scale_a_elements(p)));
    backend_.fill_bytes(*scale_a_, kScaleByte);
    scale_b_ = backend_.allocate(sizeof(float) * static_cast<std::size_t>(scale_b_elements(p)));
    backend_.fill_bytes(*scale_b_, kScaleByte);
  }
  check_c_ = backend_.allocate(bytes_of(slice_c_, p.c_type));
  if (workspace_bytes > 0) workspace_ = backend_.allocate(workspace_bytes);
  backend_.synchronize();
}

OperandMemory plan_operand_memory(Backend& backend, const Problem& problem,
                                  std::size_t workspace_bytes, double memory_fraction,
                                  std::optional<double> rotating_buffer_mb, bool flush_requested) {
  OperandMemory m;
  m.set_bytes = OperandSets::set_bytes(problem);
  m.fixed_bytes = OperandSets::fixed_bytes(problem) + workspace_bytes;
  m.allowed_bytes = static_cast<std::size_t>(memory_fraction *
                                             static_cast<double>(backend.available_memory_bytes()));
  m.rotation =
      plan_rotation(m.set_bytes, backend.properties().last_level_cache_bytes,
                    m.allowed_bytes > m.fixed_bytes ? m.allowed_bytes - m.fixed_bytes : 0,
                    rotating_buffer_mb, flush_requested, backend.properties().operand_placements);
  return m;
}

Operands OperandSets::operands(int index) const {
  const int copy = index % copies_;
  const auto placement = static_cast<std::size_t>(copy % placements_);
  const auto slot = static_cast<std::size_t>(copy / placements_);
  const auto& p = problem_;
  auto at = [&](const std::vector<std::unique_ptr<Buffer>>& buffers, std::int64_t slice,
                DType dtype) {
    return static_cast<char*>(buffers[placement]->data()) + slot * bytes_of(slice, dtype);
  };
  Operands o;
  o.a = at(a_, slice_a_, p.a_type);
  o.b = at(b_, slice_b_, p.b_type);
  o.c = at(c_, slice_c_, p.c_type);
  if (!bias_.empty()) o.bias = at(bias_, slice_bias_, bias_dtype(p));
  if (scale_a_) o.scale_a = static_cast<const float*>(scale_a_->data());
  if (scale_b_) o.scale_b = static_cast<const float*>(scale_b_->data());
  if (workspace_) {
    o.workspace = workspace_->data();
    o.workspace_bytes = workspace_->bytes();
  }
  o.alpha = alpha_;
  o.beta = beta_;
  return o;
}

Operands OperandSets::check_operands() const {
  return check_operands(alpha_, beta_);
}

Operands OperandSets::check_operands(double alpha, double beta) const {
  Operands o = operands(0);
  o.c = check_c_->data();
  o.alpha = alpha;
  o.beta = beta;
  return o;
}

void OperandSets::reset_check_output() {
  reset_check_output(beta_);
}

void OperandSets::reset_check_output(double beta) {
  if (beta != 0) {
    backend_.fill_random(*check_c_, problem_.c_type, slice_c_, seed_ * 4 + 3);
  } else {
    backend_.fill_bytes(*check_c_, poison_byte(problem_.c_type));
  }
}

std::vector<double> OperandSets::read_check_output() {
  backend_.synchronize();
  return backend_.read_as_double(*check_c_, problem_.c_type, problem_.c_elements());
}

std::unique_ptr<Buffer> OperandSets::copy_check_output() {
  auto copy = backend_.allocate(check_c_->bytes());
  backend_.copy(*copy, *check_c_, check_c_->bytes());
  return copy;
}

}  // namespace gemmtune
