// LookupTable: Problem → Entry for the Context's hot path, readable without locks.
//
// Contract:
// - Readers (find) only load atomics: no lock, no allocation, no I/O. They may run concurrently
//   with one writer.
// - Writers are serialised by the caller (the Context's writer mutex). A writer fills an empty
//   slot or replaces the entry of the same problem in place; it never removes one, so a probe
//   sequence a reader follows never breaks.
// - When the load factor would pass 1/2 the writer builds a table twice as large and publishes it
//   (see Context); the old table and every entry stay alive until the Context is destroyed, so a
//   reader holding a pointer into them is never left dangling. Tables grow geometrically and
//   entries are created once per problem (plus once per reload), so what is kept is bounded by a
//   small multiple of what is live.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tuner/problem.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::api {

// A fast hash of every field of a Problem: one multiply-xorshift per 64-bit word. (The engine's
// hash_value is a byte-wise FNV-1a: fine for maps, about 5x slower than this.)
std::uint64_t fast_hash(const Problem& problem) noexcept;

enum class EntryKind : std::uint8_t {
  Result,   // a results-file line or an online tuning: `solution_name` is the winner
  Untuned,  // a problem met without a result: Default runs
};

// What a resolved solution needs at dispatch: the solution and the workspace it asks for.
struct Resolved {
  Solution* solution = nullptr;
  std::string_view name;  // solution->name(), kept here so lookup() does not touch the solution
  std::size_t workspace_bytes = 0;
  bool fell_back = false;  // the named solution could not run here; this is Default
};

struct Entry {
  Entry(const Problem& p, std::uint64_t h, EntryKind k, std::string name, double time)
      : hash(h), kind(k), problem(p), solution_name(std::move(name)), time_ms(time) {}

  // What the hot path reads comes first, so that a lookup touches few cache lines.
  const std::uint64_t hash;
  const EntryKind kind;
  const Problem problem;

  // Untuned entries only: set once, under the writer mutex, read by the hot path.
  std::atomic<bool> recorded{false};
  std::atomic<bool> tuning_attempted{false};
  // Set when `chosen` first refused a call's operands and Default ran it (said once).
  std::atomic<bool> refusal_logged{false};

  // Resolved lazily, once (under the Context's resolve mutex), then read without locks:
  // `chosen` runs solution_name, `fallback` runs Default (for a disabled Context).
  std::atomic<const Resolved*> chosen{nullptr};
  std::atomic<const Resolved*> fallback{nullptr};
  Resolved chosen_storage, fallback_storage;

  const std::string solution_name;
  const double time_ms;
  // Owners of what `chosen` and `fallback` point at.
  std::unique_ptr<Solution> chosen_owner, fallback_owner;
};

class LookupTable {
 public:
  explicit LookupTable(std::size_t capacity);  // rounded up to a power of two, at least 16

  Entry* find(const Problem& problem, std::uint64_t hash) const noexcept {
    std::size_t i = hash & mask_;
    for (;;) {
      Entry* e = slots_[i].load(std::memory_order_acquire);
      if (e == nullptr) return nullptr;
      if (e->hash == hash && e->problem == problem) return e;
      i = (i + 1) & mask_;
    }
  }

  // Writer only. Puts `entry` in the slot of its problem (replacing what is there) or in an
  // empty one; false when the table is too full to take a new problem (build a larger one).
  bool put(Entry* entry) noexcept;

  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return mask_ + 1; }
  // Every entry, in slot order; writer only.
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i <= mask_; ++i) {
      if (Entry* e = slots_[i].load(std::memory_order_relaxed)) f(e);
    }
  }

 private:
  std::size_t mask_;
  std::size_t size_ = 0;
  std::unique_ptr<std::atomic<Entry*>[]> slots_;
};

}  // namespace gemmtune::api
