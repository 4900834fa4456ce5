#include "api/entry_tables.hpp"

#include "tuner/solution.hpp"

namespace gemmtune::api {

EntryTables::EntryTables() {
  tables_.push_back(std::make_unique<LookupTable>(64));
  table_.store(tables_.back().get(), std::memory_order_release);
}

Entry* EntryTables::make(const Problem& p, std::uint64_t h, EntryKind kind, std::string name,
                         double time_ms) {
  entries_.push_back(std::make_unique<Entry>(p, h, kind, std::move(name), time_ms));
  return entries_.back().get();
}

Entry* EntryTables::add(const Problem& p, std::uint64_t h, EntryKind kind, std::string name,
                        double time_ms) {
  Entry* e = make(p, h, kind, std::move(name), time_ms);
  publish(e);
  return e;
}

void EntryTables::publish(Entry* e) {
  if (current()->put(e)) return;
  // Full: a table twice as large with every entry, published at once. The old one stays alive
  // for readers still probing it.
  auto bigger = std::make_unique<LookupTable>(current()->capacity() * 2);
  current()->for_each([&](Entry* x) { bigger->put(x); });
  bigger->put(e);
  tables_.push_back(std::move(bigger));
  table_.store(tables_.back().get(), std::memory_order_release);
}

Entry* EntryTables::ensure(const Problem& p, std::uint64_t h) {
  if (Entry* e = current()->find(p, h)) return e;
  return add(p, h, EntryKind::Untuned, std::string(kDefaultSolutionName), 0);
}

void EntryTables::rebuild() {
  std::vector<Entry*> old;
  current()->for_each([&](Entry* e) { old.push_back(e); });
  auto fresh = std::make_unique<LookupTable>(current()->capacity());
  for (Entry* e : old) {
    Entry* n = make(e->problem, e->hash, e->kind, e->solution_name, e->time_ms);
    n->recorded.store(e->recorded.load());
    n->tuning_attempted.store(e->tuning_attempted.load());
    fresh->put(n);
  }
  tables_.push_back(std::move(fresh));
  table_.store(tables_.back().get(), std::memory_order_release);
}

}  // namespace gemmtune::api
