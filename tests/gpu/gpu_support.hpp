// Shared by the GPU tests: a problem's operands on the device (random inputs, kept host copies),
// a double-precision host reference on sampled rows, and a dtype-aware comparison.
//
// Tolerances follow from the arithmetic, per element: |c - ref| <= tol · (Σ|alpha·a·b·scales| +
// |beta·c0| + |bias|), tol = 2·u_in + (k + 2)·u_acc + 2·u_out, where u_in is the rounding of
// inputs inside the compute (TF32), u_acc the accumulator's and u_out the output type's unit
// roundoff (split-K may round partial sums to the output type). A second, aggregate check bounds
// the relative Frobenius error, which catches wrong-but-small results the first would allow.
#pragma once

#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "solutions/cuda/cuda_backend.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::gpu_test {

using Complex = std::complex<double>;

struct DeviceOperands {
  DeviceOperands(CudaBackend& backend, const Problem& problem, double alpha, double beta,
                 std::uint64_t seed = 1);

  // Resets C before a run: the initial C when beta != 0, NaN-poison otherwise.
  void reset_c();
  Operands operands() const;
  std::vector<Complex> read_c();

  CudaBackend& backend;
  Problem problem;
  double alpha, beta;
  std::unique_ptr<Buffer> a, b, c, c0, bias, scale_a, scale_b, workspace;
  std::vector<Complex> host_a, host_b, host_c0, host_bias;
  std::vector<double> host_scale_a, host_scale_b;  // 1 or m / n values

  // The reference on the sampled rows, computed on first use.
  struct Expected {
    std::size_t at;  // index into C
    Complex value;
    double magnitude;  // Σ|terms|, the scale of the rounding error
    std::int64_t batch, row, col;
  };
  const std::vector<Expected>& expected() const;

 private:
  mutable std::vector<Expected> expected_;
};

struct Comparison {
  bool ok = true;
  double worst_ratio = 0;  // max over sampled elements of error / allowed error
  double frobenius = 0;    // relative Frobenius error over sampled elements
  std::string detail;      // the worst element, for messages
};

// The rows the reference computes: all when m is small, otherwise an even sample.
std::vector<std::int64_t> sampled_rows(std::int64_t m);

// Compares C (all of it, as read back) with the reference on the sampled rows.
Comparison compare_with_reference(const DeviceOperands& ops, const std::vector<Complex>& c);

// A device copy of `bytes` at `source`, `offset` bytes past a 256-byte boundary (`storage` owns
// it): a slice of a larger tensor, as an application may pass one. Throws if the copy fails.
char* shifted_copy(CudaBackend& backend, const void* source, std::size_t bytes, std::size_t offset,
                   std::unique_ptr<Buffer>& storage);

// Moves one of `inputs`' operands, "A", "B", "bias" or "scales" (both scales), `offset` bytes
// past a 256-byte boundary by pointing it at a shifted copy of ops' own; `storage` owns the
// copies. Throws on another name.
struct ShiftedStorage {
  std::unique_ptr<Buffer> first, second;
};
void shift_operand(DeviceOperands& ops, Operands& inputs, const std::string& what,
                   std::size_t offset, ShiftedStorage& storage);

// Runs one solution on the operands and compares; an empty string means it ran and agreed.
std::string run_and_check(Solution& solution, DeviceOperands& ops);
// The same with `inputs` in place of ops.operands() (shifted copies of some of them, say); C is
// still ops.c, which the comparison reads.
std::string run_and_check(Solution& solution, DeviceOperands& ops, const Operands& inputs);

}  // namespace gemmtune::gpu_test
