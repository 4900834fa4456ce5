// The alignment of a device pointer, as cuBLASLt's CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_* attributes
// count it: the largest power of two dividing the address, capped at 256 bytes (more than any
// algorithm asks). The cap matters: an address's lowest set bit can lie above bit 31
// (0x7f5400000000 is aligned to 2^38), which a 32-bit result would truncate to 0.
#pragma once

#include <cstdint>

namespace gemmtune::cuda {

inline std::uint32_t alignment_of(const void* pointer) {
  constexpr std::uintptr_t kCap = 256;
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  const std::uintptr_t lowest_bit = address & (~address + 1);
  return static_cast<std::uint32_t>(address == 0 || lowest_bit > kCap ? kCap : lowest_bit);
}

}  // namespace gemmtune::cuda
