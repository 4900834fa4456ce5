#include "api/lookup_table.hpp"

#include <bit>

namespace gemmtune::api {
namespace {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) noexcept {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

}  // namespace

std::uint64_t fast_hash(const Problem& p) noexcept {
  // Small fields packed into one word; sizes and strides one word each.
  const std::uint64_t small =
      static_cast<std::uint64_t>(p.op) | static_cast<std::uint64_t>(p.transa) << 4 |
      static_cast<std::uint64_t>(p.transb) << 8 | static_cast<std::uint64_t>(p.a_type) << 12 |
      static_cast<std::uint64_t>(p.b_type) << 20 | static_cast<std::uint64_t>(p.c_type) << 28 |
      static_cast<std::uint64_t>(p.rowwise) << 36 |
      (p.bias_type ? static_cast<std::uint64_t>(*p.bias_type) + 1 : 0) << 40;
  std::uint64_t h = mix(0x243F6A8885A308D3ull, small);
  h = mix(h, static_cast<std::uint64_t>(p.m));
  h = mix(h, static_cast<std::uint64_t>(p.n));
  h = mix(h, static_cast<std::uint64_t>(p.k));
  h = mix(h, static_cast<std::uint64_t>(p.lda) ^ static_cast<std::uint64_t>(p.ldb) << 21 ^
                 static_cast<std::uint64_t>(p.ldc) << 42);
  h = mix(h, static_cast<std::uint64_t>(p.batch) ^ static_cast<std::uint64_t>(p.stride_a) << 17 ^
                 static_cast<std::uint64_t>(p.stride_b) << 34 ^
                 static_cast<std::uint64_t>(p.stride_c) << 51);
  return h ^ (h >> 32);
}

LookupTable::LookupTable(std::size_t capacity)
    : mask_(std::bit_ceil(capacity < 16 ? std::size_t{16} : capacity) - 1),
      slots_(std::make_unique<std::atomic<Entry*>[]>(mask_ + 1)) {}

bool LookupTable::put(Entry* entry) noexcept {
  std::size_t i = entry->hash & mask_;
  for (;;) {
    Entry* e = slots_[i].load(std::memory_order_relaxed);
    if (e == nullptr) {
      if (2 * (size_ + 1) > capacity()) return false;
      slots_[i].store(entry, std::memory_order_release);
      ++size_;
      return true;
    }
    if (e->hash == entry->hash && e->problem == entry->problem) {
      slots_[i].store(entry, std::memory_order_release);
      return true;
    }
    i = (i + 1) & mask_;
  }
}

}  // namespace gemmtune::api
