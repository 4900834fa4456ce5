// Hopper's bulk asynchronous tensor copies (cp.async.bulk.tensor, run by the TMA unit) from global
// to shared memory, and the mbarriers that count their bytes. sm_90 and later; for .cu files only.
//
// The pattern: a producer thread arms a "full" barrier with the bytes a stage will receive
// (arrive_expect_tx), issues the copies, and each copy's completion subtracts its bytes; a
// consumer waits for the barrier's phase to flip, reads the stage, and arrives on the stage's
// "empty" barrier, for which the producer waits before it reuses the buffer.
#pragma once

#include <cstdint>

namespace gemmtune::cuda::bulk {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(std::uint64_t* barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
               "r"(arrivals)
               : "memory");
}

// Makes initialized barriers visible to the async proxy (the copies) before any is used.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
               : "memory");
}

__device__ __forceinline__ void arrive_expect_bytes(std::uint64_t* barrier, unsigned bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
}

// Spins until the barrier's phase of the given parity has completed. Built with
// GEMMTUNE_BULK_WAIT_WATCHDOG defined, a wait that spins 2^26 times prints the block, thread and
// barrier and traps: a pipeline whose phases went out of step then fails instead of hanging.
__device__ __forceinline__ void wait(std::uint64_t* barrier, unsigned parity) {
  const std::uint32_t at = shared_address(barrier);
  std::uint32_t done = 0;
#ifdef GEMMTUNE_BULK_WAIT_WATCHDOG
  unsigned spins = 0;
#endif
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(at), "r"(parity)
        : "memory");
#ifdef GEMMTUNE_BULK_WAIT_WATCHDOG
    if (!done && ++spins == (1u << 26)) {
      printf("watchdog: block %d thread %d barrier %p parity %u\n", blockIdx.x, threadIdx.x,
             barrier, parity);
      __trap();
    }
#endif
  } while (!done);
}

// L2 policies for the copies: data read once is evicted first, data every block rereads last.
__device__ __forceinline__ std::uint64_t evict_first_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ std::uint64_t evict_last_policy() {
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

// Asks the TMA unit to bring one box of a 3-D tensor map into L2, and nothing else: no shared
// memory, no barrier, no order. A hint, so it may run before griddepcontrol.wait: L2 is where every
// write lands, and the real copy after the wait reads what the previous kernel wrote.
__device__ __forceinline__ void prefetch_box(const void* tensor_map, int k, int row, int batch) {
  asm volatile(
      "cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];\n" ::"l"(tensor_map),
      "r"(k), "r"(row), "r"(batch)
      : "memory");
}

// Copies one box of a 3-D tensor map (the box's coordinates: inner k, row, batch) into shared
// memory (1024-byte aligned for the 128-byte swizzle) and counts its bytes on `barrier`. Parts of
// the box outside the tensor arrive as zeros, and count too.
__device__ __forceinline__ void copy_box(std::uint32_t shared_destination, const void* tensor_map,
                                         int k, int row, int batch, std::uint64_t* barrier,
                                         std::uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(shared_destination),
      "l"(tensor_map), "r"(k), "r"(row), "r"(batch), "r"(shared_address(barrier)), "l"(policy)
      : "memory");
}

}  // namespace gemmtune::cuda::bulk
