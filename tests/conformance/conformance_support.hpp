// What the conformance suite builds its tests from: the GEMMs it asks of a backend's Default for
// each dtype, their operands on the backend (random inputs read back as the host's copy), and a
// double-precision host reference computed from that copy, independent of every backend.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/problem.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::conformance {

struct GemmCase {
  Problem problem;
  double alpha = 1.0;
  double beta = 0.0;
  // Default must support a required case of every claimed dtype; an optional one (GemmAndBias)
  // is checked where Default supports it.
  bool required = true;

  std::string describe() const;  // "GemmTunableOp_float_NN,nn_37_23_29_ld_40_32_41 alpha=..."
};

// The cases for one dtype: for fp8 a ScaledGemm (A transposed, bf16 output, tensor-wise scales);
// otherwise a Gemm with padded leading dimensions and beta != 0, a transposed Gemm (conjugate for
// complex types), a GemmStridedBatched with gaps between the matrices of C, and GemmAndBias.
std::vector<GemmCase> gemm_cases(DType dtype);

// One small problem of the dtype for a whole tuning run (tn; fp8: the ScaledGemm above).
Problem tuning_problem(DType dtype);

// A problem whose C has padding between m and ldc and, for non-fp8 types, gaps between batches;
// for the output checks, which only look at C's layout and type.
Problem padded_output_problem(DType dtype);

// One GEMM's operands on a backend: A, B, C (random when beta != 0, poisoned otherwise), the
// bias, ScaledGemm's scales (fill_bytes 0x3F: 0.747 each, as the tuner sets them) and the
// workspace the solution asks for. Everything is filled through the Backend interface.
class DeviceGemm {
 public:
  DeviceGemm(Backend& backend, const GemmCase& gemm, std::size_t workspace_bytes,
             std::uint64_t seed);

  // Puts C back as it was before any run.
  void reset_c();
  Operands operands() const;
  Buffer& c() { return *c_; }
  // Synchronizes and reads C back (c_elements values, re/im interleaved for complex).
  std::vector<double> read_c();

  // C as the GEMM must leave it, in read_c's layout: the double-precision result on the m×n
  // elements of every batch, and C's initial values everywhere else.
  const std::vector<double>& expected() const { return expected_; }
  // The elements outside m×n (padding, gaps) that differ from C's initial values; empty when
  // none. NaN equals NaN here: a poisoned gap must stay poisoned.
  std::string written_outside(std::span<const double> c) const;

 private:
  Backend& backend_;
  Problem problem_;
  double alpha_, beta_;
  std::uint64_t seed_;
  std::unique_ptr<Buffer> a_, b_, c_, bias_, scale_a_, scale_b_, workspace_;
  std::vector<double> initial_c_;
  std::vector<double> expected_;
};

// Values per element: 2 for complex types (real, imaginary), else 1.
inline int parts_of(DType dtype) {
  return info(dtype).is_complex ? 2 : 1;
}

// Leading or trailing whitespace, which a results file's reader trims.
bool has_surrounding_space(std::string_view text);
// What a results file cannot hold in one field: its CSV has no quoting.
bool breaks_a_csv_field(std::string_view text);

// Whether element `index` of C (in elements, not values) is one the GEMM writes.
bool written_by_gemm(const Problem& problem, std::int64_t index);

}  // namespace gemmtune::conformance
