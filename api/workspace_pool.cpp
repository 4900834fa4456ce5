#include "api/workspace_pool.hpp"

namespace gemmtune::api {

WorkspacePool::WorkspacePool(Backend& backend, bool stream_ordered)
    : backend_(backend), stream_ordered_(stream_ordered) {}

WorkspacePool::~WorkspacePool() = default;

WorkspacePool::Lease::Lease(Lease&& other) noexcept
    : data_(other.data_), bytes_(other.bytes_), busy_(other.busy_), own_(std::move(other.own_)) {
  other.busy_ = nullptr;
}

WorkspacePool::Lease::~Lease() {
  if (busy_ != nullptr) busy_->store(false, std::memory_order_release);
}

WorkspacePool::Lease WorkspacePool::acquire(void* stream, std::size_t bytes) {
  const void* identity = stream_ordered_ ? backend_.stream_identity(stream) : stream;
  const std::size_t used = used_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < used; ++i) {
    Slot& s = slots_[i];
    Buffer* b = s.buffer.load(std::memory_order_acquire);
    if (b == nullptr || b->bytes() < bytes) continue;
    Lease lease;
    if (stream_ordered_) {
      if (s.stream.load(std::memory_order_acquire) != identity) continue;
    } else {
      bool expected = false;
      if (s.busy.load(std::memory_order_relaxed) ||
          !s.busy.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
        continue;
      }
      b = s.buffer.load(std::memory_order_acquire);  // may have grown before we took it
      lease.busy_ = &s.busy;
    }
    lease.data_ = b->data();
    lease.bytes_ = b->bytes();
    return lease;
  }
  return acquire_slow(stream, identity, bytes);
}

WorkspacePool::Lease WorkspacePool::acquire_slow(void* stream, const void* identity,
                                                 std::size_t bytes) {
  // An allocation (or the free of an overflow lease) would fail the capture. A captured graph
  // keeps the workspace's address, and the pool frees none before it is destroyed.
  if (stream_ordered_ && backend_.capturing(stream)) return Lease{};
  const std::lock_guard lock(mutex_);
  // Round up so that a slightly larger need later does not allocate again.
  const std::size_t size = (bytes + (1u << 20) - 1) & ~((std::size_t{1} << 20) - 1);
  Lease lease;
  std::size_t used = used_.load(std::memory_order_relaxed);
  Slot* slot = nullptr;
  if (stream_ordered_) {
    for (std::size_t i = 0; i < used; ++i) {
      if (slots_[i].stream.load(std::memory_order_relaxed) == identity) slot = &slots_[i];
    }
  }
  if (slot == nullptr && used < kSlots) {
    slot = &slots_[used];
    slot->stream.store(identity, std::memory_order_relaxed);
    if (!stream_ordered_) slot->busy.store(true, std::memory_order_relaxed);
    used_.store(used + 1, std::memory_order_release);
  } else if (slot == nullptr) {
    // More streams or concurrent callers than slots: this call gets a workspace of its own.
    lease.own_ = backend_.allocate(size);
    lease.data_ = lease.own_->data();
    lease.bytes_ = lease.own_->bytes();
    return lease;
  } else if (!stream_ordered_) {
    slot->busy.store(true, std::memory_order_relaxed);
  }
  Buffer* current = slot->buffer.load(std::memory_order_relaxed);
  if (current == nullptr || current->bytes() < bytes) {
    // The replaced buffer stays alive (a stream may still be using it) until the pool goes.
    buffers_.push_back(backend_.allocate(size));
    current = buffers_.back().get();
    slot->buffer.store(current, std::memory_order_release);
  }
  if (!stream_ordered_) lease.busy_ = &slot->busy;
  lease.data_ = current->data();
  lease.bytes_ = current->bytes();
  return lease;
}

}  // namespace gemmtune::api
