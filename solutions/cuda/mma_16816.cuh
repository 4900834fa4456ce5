// The tensor-core instructions the skinny kernels use: mma.sync m16n8k16 with fp32 accumulation
// for bf16 and fp16, and ldmatrix, which loads its fragments from shared memory. For .cu files
// only.
//
// Fragment layout of m16n8k16 (lane = 4·g + t): A rows g and g+8, k pairs 2t and 2t+8; B column
// g, the same k pairs; D rows g and g+8, columns 2t and 2t+1.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace gemmtune::cuda::tc {

// D += A·B for one m16n8k16 tile; a: 4 registers of 2 elements, b: 2. Not volatile: the
// instruction has no side effects, and the compiler may then schedule loads around it.
template <typename T>
__device__ __forceinline__ void mma_16816(float (&d)[4], unsigned a0, unsigned a1, unsigned a2,
                                          unsigned a3, unsigned b0, unsigned b1);
template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float (&d)[4], unsigned a0, unsigned a1,
                                                         unsigned a2, unsigned a3, unsigned b0,
                                                         unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma_16816<__half>(float (&d)[4], unsigned a0, unsigned a1,
                                                  unsigned a2, unsigned a3, unsigned b0,
                                                  unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Four 8×8 matrices of 16-bit elements from shared memory: lanes 8q..8q+7 give the row addresses
// of matrix q, and lane (g, t) receives row g, elements 2t and 2t+1 of each. Volatile with a
// memory clobber: it must not move across the barrier wait that makes the stage's data valid.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], std::uint32_t shared_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address)
               : "memory");
}
// Two matrices: lanes 0–15 give the addresses.
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], std::uint32_t shared_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(shared_address)
               : "memory");
}

}  // namespace gemmtune::cuda::tc
