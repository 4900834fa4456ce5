// EntryTables: every entry a Context made, every lookup table it built, and the table the hot path
// reads now. Writers (the Context's writer mutex held) add entries and publish them; a table too
// full for one more is replaced by one twice as large, published at once. Nothing is freed before
// the Context goes: a reader may still be probing an old table or holding an entry
// (api/lookup_table.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/lookup_table.hpp"

namespace gemmtune::api {

class EntryTables {
 public:
  EntryTables();

  LookupTable* current() const { return table_.load(std::memory_order_acquire); }

  // Writer held, all three.
  // A new entry for `p`, published in place of p's current one if it has one.
  Entry* add(const Problem& p, std::uint64_t h, EntryKind kind, std::string name, double time_ms);
  // p's entry, or a new Untuned one (Default runs it).
  Entry* ensure(const Problem& p, std::uint64_t h);
  // Fresh entries (nothing resolved yet) for every problem, in a new table.
  void rebuild();

 private:
  Entry* make(const Problem& p, std::uint64_t h, EntryKind kind, std::string name, double time_ms);
  void publish(Entry* e);

  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::unique_ptr<LookupTable>> tables_;
  std::atomic<LookupTable*> table_{nullptr};
};

}  // namespace gemmtune::api
