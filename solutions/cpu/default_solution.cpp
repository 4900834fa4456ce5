#include "solutions/cpu/default_solution.hpp"

#include <complex>
#include <string>
#include <type_traits>
#include <vector>

#include "solutions/cpu/elements.hpp"

namespace gemmtune::cpu {
namespace {

template <class T>
T load(DType dtype, const void* base, std::int64_t i) {
  if constexpr (std::is_same_v<T, double>) {
    return load_real(dtype, base, i);
  } else {
    return load_complex(dtype, base, i);
  }
}

template <class T>
T maybe_conj(T v, Transpose t) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return t == Transpose::C ? std::conj(v) : v;
  }
}

template <class T>
void reference(const Problem& p, const Operands& o) {
  const auto m = p.m, n = p.n, k = p.k;
  const DType bias_type = p.bias_type.value_or(p.c_type);
  std::vector<T> a(static_cast<std::size_t>(m * k));  // op(A), row i contiguous over l
  std::vector<T> b(static_cast<std::size_t>(n * k));  // op(B), column j contiguous over l
  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const std::int64_t a0 = batch * p.batch_stride_a();
    const std::int64_t b0 = batch * p.batch_stride_b();
    const std::int64_t c0 = batch * p.batch_stride_c();
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t l = 0; l < k; ++l) {
        const std::int64_t at = p.transa == Transpose::N ? i + l * p.lda : l + i * p.lda;
        a[static_cast<std::size_t>(i * k + l)] =
            maybe_conj(load<T>(p.a_type, o.a, a0 + at), p.transa);
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      for (std::int64_t l = 0; l < k; ++l) {
        const std::int64_t at = p.transb == Transpose::N ? l + j * p.ldb : j + l * p.ldb;
        b[static_cast<std::size_t>(j * k + l)] =
            maybe_conj(load<T>(p.b_type, o.b, b0 + at), p.transb);
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      const T* bj = b.data() + j * k;
      for (std::int64_t i = 0; i < m; ++i) {
        const T* ai = a.data() + i * k;
        T acc{};
        for (std::int64_t l = 0; l < k; ++l) acc += ai[l] * bj[l];
        // alpha = 0 reads no product, as in BLAS: a NaN or Inf in A or B does not reach C.
        T value = o.alpha == 0 ? T{} : o.alpha * acc;
        if (p.op == OpKind::ScaledGemm) {
          const double sa = o.scale_a ? o.scale_a[p.rowwise ? i : 0] : 1.0;
          const double sb = o.scale_b ? o.scale_b[p.rowwise ? j : 0] : 1.0;
          value *= sa * sb;
        }
        const std::int64_t at = c0 + i + j * p.ldc;
        if (o.beta != 0) value += o.beta * load<T>(p.c_type, o.c, at);
        if (p.has_bias() && o.bias) value += load<T>(bias_type, o.bias, i);
        if constexpr (std::is_same_v<T, double>) {
          store_real(p.c_type, o.c, at, value);
        } else {
          store_complex(p.c_type, o.c, at, value);
        }
      }
    }
  }
}

class DefaultSolution final : public Solution {
 public:
  const std::string& name() const override { return name_; }
  Support supports(const Problem& problem) const override {
    if (auto why = problem.invalid_reason()) return Support::no(*why);
    if (problem.op == OpKind::ScaledGemm && info(problem.c_type).is_complex) {
      return Support::no("ScaledGemm has no complex form");
    }
    return Support::yes();
  }
  RunStatus run(const Problem& problem, const Operands& operands, void*) override {
    if (problem.op == OpKind::ScaledGemm && (!operands.scale_a || !operands.scale_b)) {
      return RunStatus::failure("ScaledGemm needs scale_a and scale_b");
    }
    reference_gemm(problem, operands);
    return RunStatus::success();
  }

 private:
  std::string name_{kDefaultSolutionName};
};

}  // namespace

void reference_gemm(const Problem& problem, const Operands& operands) {
  if (info(problem.c_type).is_complex || info(problem.a_type).is_complex) {
    reference<std::complex<double>>(problem, operands);
  } else {
    reference<double>(problem, operands);
  }
}

std::unique_ptr<Solution> make_default_solution() {
  return std::make_unique<DefaultSolution>();
}

}  // namespace gemmtune::cpu
