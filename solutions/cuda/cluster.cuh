// Thread-block clusters (sm_90 and later): a block's rank, the cluster-wide barrier, and the
// distributed shared memory through which the blocks of a cluster hand each other data. For .cu
// files only.
//
// The hand-over pattern (skinny_split_kernel.cuh): the sender writes into the receiver's shared
// memory with st.async, each store counting its bytes on an mbarrier of the receiver (as the TMA
// unit's copies do on a stage's barrier), so the receiver needs nothing but that barrier's phase
// to know the data is there; the receiver, once it has read the data, arrives on an mbarrier of
// each sender (release at cluster scope), which the sender waits for (acquire at cluster scope)
// before it writes there again.
#pragma once

#include <cstdint>

#include "solutions/cuda/bulk_copy.cuh"

namespace gemmtune::cuda::cluster {

// The block's rank in its cluster.
__device__ __forceinline__ int rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return static_cast<int>(r);
}

// Every non-exited thread of every block of the cluster arrives, then waits for all the others:
// the memory operations before it are visible to the cluster after it. Needed after the
// barriers' initialization (before any block touches another's) and before a block exits (a
// block's shared memory must outlive the other blocks' accesses to it).
__device__ __forceinline__ void sync() {
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
}

// sync() in two halves, so that a block can work between them: every thread arrives once, then
// waits before it first touches another block (and before it arrives again).
__device__ __forceinline__ void arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}
__device__ __forceinline__ void wait() {
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

// The address in block `target`'s shared memory of what is at `local` in this block's.
__device__ __forceinline__ std::uint32_t address_in(std::uint32_t local, int target) {
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(local), "r"(target));
  return remote;
}

// Stores 16 bytes at `remote` (an address_in another block) and counts them on the mbarrier at
// `remote_barrier` (in the same block).
__device__ __forceinline__ void store_counted(std::uint32_t remote, float x, float y, float z,
                                              float w, std::uint32_t remote_barrier) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
      "[%5];\n" ::"r"(remote),
      "f"(x), "f"(y), "f"(z), "f"(w), "r"(remote_barrier)
      : "memory");
}

// Arrives on the mbarrier at `remote_barrier` (an address_in another block), releasing this
// thread's earlier memory accesses to the cluster.
__device__ __forceinline__ void arrive_remote(std::uint32_t remote_barrier) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(
                   remote_barrier)
               : "memory");
}

// bulk::wait for a barrier that other blocks arrive on: acquires what they released.
__device__ __forceinline__ void wait_acquire(std::uint64_t* barrier, unsigned parity) {
  const std::uint32_t at = bulk::shared_address(barrier);
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(at), "r"(parity)
        : "memory");
  } while (!done);
}

}  // namespace gemmtune::cuda::cluster
