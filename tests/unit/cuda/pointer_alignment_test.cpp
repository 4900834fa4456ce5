// Pointer alignment as cuBLASLt's alignment capabilities count it.
#include <gtest/gtest.h>

#include <cstdint>

#include "solutions/cuda/pointer_alignment.hpp"

namespace gemmtune::cuda {
namespace {

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(PointerAlignment, LowestSetBitCappedAt256) {
  EXPECT_EQ(alignment_of(at(0x1000)), 256u);
  EXPECT_EQ(alignment_of(at(0x1004)), 4u);
  EXPECT_EQ(alignment_of(at(0x1010)), 16u);
  EXPECT_EQ(alignment_of(at(0x1001)), 1u);
  EXPECT_EQ(alignment_of(nullptr), 256u);
}

TEST(PointerAlignment, AddressesAlignedBeyond32BitsAreAligned) {
  // Seen on an H200: cudaMalloc returned 0x7f5400000000, and a 32-bit lowest-bit computation
  // called it unaligned.
  EXPECT_EQ(alignment_of(at(0x7f5400000000ull)), 256u);
  EXPECT_EQ(alignment_of(at(std::uintptr_t{1} << 40)), 256u);
}

}  // namespace
}  // namespace gemmtune::cuda
