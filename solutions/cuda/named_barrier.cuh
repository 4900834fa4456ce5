// Named barriers (bar.sync / bar.arrive) for hand-offs between the warps of one block: a warp that
// produces data arrives without waiting, a warp that consumes it waits until every participating
// thread has arrived. Both sides count whole warps, and every lane of a participating warp must
// execute the call. Id 0 is __syncthreads()'s. For .cu files only.
#pragma once

namespace gemmtune::cuda::skinny {

// Waits until `Threads` threads (the caller's warp among them) have reached barrier `Id`; the
// shared-memory writes the arriving threads made before it are then visible to the caller.
template <int Id, int Threads>
__device__ __forceinline__ void named_barrier_sync() {
  static_assert(Id > 0 && Id < 16 && Threads % 32 == 0);
  asm volatile("bar.sync %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
}

// Counts the caller's warp in barrier `Id` without waiting.
template <int Id, int Threads>
__device__ __forceinline__ void named_barrier_arrive() {
  static_assert(Id > 0 && Id < 16 && Threads % 32 == 0);
  asm volatile("bar.arrive %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
}

}  // namespace gemmtune::cuda::skinny
