// WorkspacePool: scratch memory the Context hands to a solution when the caller passes none.
//
// Two policies, because a workspace may be reused only once the work that used it is done:
// - Stream-ordered backends (CUDA): one workspace per stream. Work on one stream runs in order,
//   so every call on that stream may reuse it, from any thread. A stream is told apart by
//   Backend::stream_identity, not by its handle: cudaStreamPerThread is one handle for a stream of
//   each thread, and two threads' calls on it would otherwise share one workspace at once.
// - Synchronous backends (the CPU: run returns when C is written): a call borrows a free
//   workspace for its duration and gives it back.
// The common case (a stream or a free slot already there) takes no lock and allocates nothing;
// a new stream, a larger need or more concurrent CPU callers than slots take the slow path once.
// Workspaces are freed when the pool is destroyed, never while a caller may still use them.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "tuner/backend.hpp"

namespace gemmtune::api {

class WorkspacePool {
 public:
  WorkspacePool(Backend& backend, bool stream_ordered);
  ~WorkspacePool();
  WorkspacePool(const WorkspacePool&) = delete;
  WorkspacePool& operator=(const WorkspacePool&) = delete;

  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

   private:
    friend class WorkspacePool;
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    std::atomic<bool>* busy_ = nullptr;  // synchronous policy: released on destruction
    std::unique_ptr<Buffer> own_;        // overflow: a buffer of this call alone
  };

  // Workspace of at least `bytes` for a call on `stream`; throws if it cannot be allocated. While
  // `stream` is being captured into a graph (Backend::capturing) nothing is allocated: a stream
  // without a large enough workspace then gets an empty lease (data() null).
  Lease acquire(void* stream, std::size_t bytes);

 private:
  static constexpr std::size_t kSlots = 64;
  struct Slot {
    std::atomic<const void*> stream{nullptr};  // its Backend::stream_identity
    std::atomic<Buffer*> buffer{nullptr};
    std::atomic<bool> busy{false};
  };

  Lease acquire_slow(void* stream, const void* identity, std::size_t bytes);

  Backend& backend_;
  const bool stream_ordered_;
  std::array<Slot, kSlots> slots_;
  std::atomic<std::size_t> used_{0};  // slots [0, used_) are initialised
  std::mutex mutex_;
  std::vector<std::unique_ptr<Buffer>> buffers_;  // owners, including replaced ones
};

}  // namespace gemmtune::api
