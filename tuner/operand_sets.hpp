// OperandSets: the device memory one problem is tuned in — `copies` rotating sets of A, B, C and
// bias (per operand, one allocation per placement of the rotation plan, each copy a slice of one;
// consecutive copies lie in different placements), the ScaledGemm scales, the largest workspace a
// candidate asked for, and a separate C for numerical checks.
//
// Everything is allocated and filled before any timing: inputs with random values in [-1, 1]
// (never zeros: they run faster and hide unwritten outputs), outputs poisoned (NaN bytes) so that
// elements a candidate never writes fail the numerical check. Scales are positive constants.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/problem.hpp"
#include "tuner/rotation.hpp"
#include "tuner/solution.hpp"

namespace gemmtune {

// The memory of one problem's operands on a backend: `allowed_bytes` (memory_fraction of what
// the backend has available) must hold the fixed buffers plus `workspace_bytes`, and the rotating
// sets take what is left (plan_rotation, with the caller's rotation and flush requests).
struct OperandMemory {
  std::size_t set_bytes = 0;      // one rotating set
  std::size_t fixed_bytes = 0;    // OperandSets::fixed_bytes + the workspace
  std::size_t allowed_bytes = 0;  // memory_fraction × available memory
  RotationPlan rotation;          // .fits false: not even one set fits
};
OperandMemory plan_operand_memory(Backend& backend, const Problem& problem,
                                  std::size_t workspace_bytes, double memory_fraction,
                                  std::optional<double> rotating_buffer_mb, bool flush_requested);

class OperandSets {
 public:
  // Bytes one rotating set needs (A, B, C, bias; each slice-aligned).
  static std::size_t set_bytes(const Problem& problem);
  // Bytes allocated besides the rotating sets (check C, the copies of the two references a device
  // check keeps, scales), for memory accounting.
  static std::size_t fixed_bytes(const Problem& problem);

  // Allocates and fills; throws (Error or std::bad_alloc) when the backend cannot allocate.
  OperandSets(Backend& backend, const Problem& problem, const RotationPlan& plan,
              std::size_t workspace_bytes, std::uint64_t seed, double alpha, double beta);

  int copies() const { return copies_; }
  // Pointers of copy `index` (mod copies); workspace, alpha and beta filled in.
  Operands operands(int index) const;
  // The operands of the next copy in round-robin order; the order continues across phases.
  Operands next() { return operands(cursor_++ % copies_); }

  // Copy 0's inputs with the check C as output, under the tuned scalars or under others.
  Operands check_operands() const;
  Operands check_operands(double alpha, double beta) const;
  // Makes the check C ready for one run under the tuned beta or another: poisoned when beta == 0,
  // else the same random values as every time before, so that all candidates start from
  // identical C.
  void reset_check_output();
  void reset_check_output(double beta);
  // The check C as doubles (complex: re, im interleaved), batch layout as the Problem says.
  std::vector<double> read_check_output();
  // The check C where it is, and a device copy of it (for the reference of device checks).
  const Buffer& check_output() const { return *check_c_; }
  std::unique_ptr<Buffer> copy_check_output();

 private:
  Backend& backend_;
  Problem problem_;
  std::uint64_t seed_;
  double alpha_, beta_;
  int copies_ = 1;
  int placements_ = 1;  // copy k lies in allocation k % placements_, at slice k / placements_
  int cursor_ = 0;
  std::int64_t slice_a_ = 0, slice_b_ = 0, slice_c_ = 0, slice_bias_ = 0;  // elements per copy
  std::vector<std::unique_ptr<Buffer>> a_, b_, c_, bias_;                  // one per placement
  std::unique_ptr<Buffer> scale_a_, scale_b_, check_c_, workspace_;
};

// The byte value that poisons outputs of `dtype`: every element becomes a NaN.
unsigned char poison_byte(DType dtype);

}  // namespace gemmtune
