#include "solutions/cpu/openblas_solution.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>

#include "solutions/cpu/elements.hpp"
#include "solutions/cpu/float_conversion.hpp"
#include "solutions/cpu/openblas.hpp"

namespace gemmtune::cpu {

int openblas_thread_count() {
  return std::max(1, openblas_get_num_threads());
}

std::string openblas_config_string() {
  const char* config = openblas_get_config();
  return config ? std::string(config) : std::string("unknown");
}

bool openblas_has_sbgemm() {
#ifdef GEMMTUNE_HAVE_SBGEMM
  return true;
#else
  return false;
#endif
}

namespace {

CBLAS_TRANSPOSE cblas_op(Transpose t) {
  switch (t) {
    case Transpose::N: return CblasNoTrans;
    case Transpose::T: return CblasTrans;
    case Transpose::C: return CblasConjTrans;
  }
  return CblasNoTrans;
}

// The bias (m elements) added to every column of one C matrix, in C's own type.
void add_bias(const Problem& p, const Operands& o, std::int64_t c0) {
  const DType t = p.c_type;
  for (std::int64_t j = 0; j < p.n; ++j) {
    for (std::int64_t i = 0; i < p.m; ++i) {
      const std::int64_t at = c0 + i + j * p.ldc;
      if (t == DType::Float32 || t == DType::TF32) {
        static_cast<float*>(o.c)[at] += static_cast<const float*>(o.bias)[i];
      } else if (t == DType::Float64) {
        static_cast<double*>(o.c)[at] += static_cast<const double*>(o.bias)[i];
      } else {
        store_complex(t, o.c, at, load_complex(t, o.c, at) + load_complex(t, o.bias, i));
      }
    }
  }
}

class OpenBlasSolution final : public Solution {
 public:
  const std::string& name() const override { return name_; }

  Support supports(const Problem& p) const override {
    if (auto why = p.invalid_reason()) return Support::no(*why);
    if (p.op == OpKind::ScaledGemm) return Support::no("OpenBLAS has no fp8 GEMM");
    switch (p.a_type) {
      case DType::Float32:
      case DType::TF32:
      case DType::Float64:
      case DType::ComplexFloat32:
      case DType::ComplexFloat64: return Support::yes();
      case DType::BFloat16:
        if (openblas_has_sbgemm()) return Support::yes();
        return Support::no(fmt::format("the linked OpenBLAS ({}) does not export cblas_sbgemm",
                                       openblas_config_string()));
      case DType::Float16: return Support::no("OpenBLAS has no fp16 GEMM");
      default: return Support::no(fmt::format("OpenBLAS has no {} GEMM", info(p.a_type).cli_name));
    }
  }

  std::size_t workspace_bytes(const Problem& p) const override {
    // sbgemm writes float; the result is rounded to bf16 from there.
    return p.a_type == DType::BFloat16 ? static_cast<std::size_t>(p.m * p.n) * sizeof(float) : 0;
  }

  RunStatus run(const Problem& p, const Operands& o, void*) override {
    if (p.has_bias() && !o.bias) return RunStatus::failure("GemmAndBias without a bias pointer");
    const auto m = static_cast<blasint>(p.m), n = static_cast<blasint>(p.n),
               k = static_cast<blasint>(p.k);
    const auto lda = static_cast<blasint>(p.blas_lda()), ldb = static_cast<blasint>(p.blas_ldb()),
               ldc = static_cast<blasint>(p.blas_ldc());
    const auto ta = cblas_op(p.transa), tb = cblas_op(p.transb);
    for (std::int64_t batch = 0; batch < p.batch; ++batch) {
      const std::int64_t a0 = batch * p.batch_stride_a(), b0 = batch * p.batch_stride_b(),
                         c0 = batch * p.batch_stride_c();
      switch (p.a_type) {
        case DType::Float32:
        case DType::TF32:
          cblas_sgemm(CblasColMajor, ta, tb, m, n, k, static_cast<float>(o.alpha),
                      static_cast<const float*>(o.a) + a0, lda, static_cast<const float*>(o.b) + b0,
                      ldb, static_cast<float>(o.beta), static_cast<float*>(o.c) + c0, ldc);
          break;
        case DType::Float64:
          cblas_dgemm(CblasColMajor, ta, tb, m, n, k, o.alpha, static_cast<const double*>(o.a) + a0,
                      lda, static_cast<const double*>(o.b) + b0, ldb, o.beta,
                      static_cast<double*>(o.c) + c0, ldc);
          break;
        case DType::ComplexFloat32: {
          const std::complex<float> alpha(static_cast<float>(o.alpha)), beta(static_cast<float>(o.beta));
          cblas_cgemm(CblasColMajor, ta, tb, m, n, k, &alpha,
                      static_cast<const std::complex<float>*>(o.a) + a0, lda,
                      static_cast<const std::complex<float>*>(o.b) + b0, ldb, &beta,
                      static_cast<std::complex<float>*>(o.c) + c0, ldc);
          break;
        }
        case DType::ComplexFloat64: {
          const std::complex<double> alpha(o.alpha), beta(o.beta);
          cblas_zgemm(CblasColMajor, ta, tb, m, n, k, &alpha,
                      static_cast<const std::complex<double>*>(o.a) + a0, lda,
                      static_cast<const std::complex<double>*>(o.b) + b0, ldb, &beta,
                      static_cast<std::complex<double>*>(o.c) + c0, ldc);
          break;
        }
#ifdef GEMMTUNE_HAVE_SBGEMM
        case DType::BFloat16: {
          if (o.workspace_bytes < workspace_bytes(p)) return RunStatus::failure("workspace too small");
          auto* out = static_cast<float*>(o.workspace);
          auto* c = static_cast<std::uint16_t*>(o.c) + c0;
          for (std::int64_t j = 0; j < p.n; ++j) {
            for (std::int64_t i = 0; i < p.m; ++i) {
              out[i + j * p.m] = o.beta != 0 ? bf16_to_float(c[i + j * p.ldc]) : 0.0f;
            }
          }
          cblas_sbgemm(CblasColMajor, ta, tb, m, n, k, static_cast<float>(o.alpha),
                       static_cast<const bfloat16*>(o.a) + a0, lda,
                       static_cast<const bfloat16*>(o.b) + b0, ldb, static_cast<float>(o.beta),
                       out, m);
          const auto* bias = static_cast<const std::uint16_t*>(o.bias);
          for (std::int64_t j = 0; j < p.n; ++j) {
            for (std::int64_t i = 0; i < p.m; ++i) {
              const float v = out[i + j * p.m] + (p.has_bias() ? bf16_to_float(bias[i]) : 0.0f);
              c[i + j * p.ldc] = float_to_bf16(v);
            }
          }
          continue;  // bias already added
        }
#endif
        default: return RunStatus::failure(fmt::format("unsupported dtype {}", info(p.a_type).cli_name));
      }
      if (p.has_bias()) add_bias(p, o, c0);
    }
    return RunStatus::success();
  }

 private:
  std::string name_{kOpenBlasSolutionName};
};

}  // namespace

std::unique_ptr<Solution> make_openblas_solution() { return std::make_unique<OpenBlasSolution>(); }

}  // namespace gemmtune::cpu
