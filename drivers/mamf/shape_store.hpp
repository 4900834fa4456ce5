// ShapeStore: the results store `gemmtune mamf --db FILE` adds each shape's result to.
//
// Contract:
// - Opened before the sweep and checked as a tuning run checks its output (require_appendable,
//   add_tuned_signatures): a store that cannot take this run's results is an error before any
//   shape is measured, not at its first save. Lines of the store it cannot read are kept as they
//   are and returned by unreadable_notes().
// - add() appends a shape's entry (the faster of Default and the tuned or looked-up solution, with
//   both measurements) unless the store already holds that problem for this environment: then
//   the entry there is kept and add() returns false. A winner that `gemmtune tune` found must not
//   be replaced by mamf's `Default`, measured under another protocol (mamf flushes the cache
//   between iterations), and a `tune` rerun would skip the problem and never measure it again.
//   The store's entries that an earlier mamf sweep wrote are kept too (a `Default` a plain sweep
//   stored stays when a `--tuned` one follows): a CSV file does not say which entry came from
//   where, so none is replaced. A shape repeated within one sweep is stored once, the first time.
// - add() throws what the store's append throws; the sweep reports the shape as measured but not
//   stored and goes on. record_run() keeps the sweep's command line and options (SQLite only).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "db/results_store.hpp"
#include "drivers/mamf/sweep_stats.hpp"
#include "drivers/tune_problems.hpp"
#include "tuner/problem.hpp"

namespace gemmtune::mamf {

class ShapeStore {
 public:
  ShapeStore(const std::string& file, const Environment& environment);

  const std::vector<std::string>& unreadable_notes() const { return unreadable_notes_; }

  // `best` is `base` itself where Default was the faster.
  bool add(const Problem& problem, const ShapeResult& base, const ShapeResult& best);

  void record_run(const RunRecord& run) { store_->record_run(run); }

  // The shapes add() kept the store's entry for, said once after the sweep; empty when none.
  std::string kept_note() const;

 private:
  std::unique_ptr<ResultsStore> store_;
  Environment environment_;
  SignatureSet stored_;            // what the store held before the sweep
  SignatureSet added_;             // what this sweep stored
  std::vector<std::string> kept_;  // shapes, as "MxNxK"
  std::vector<std::string> unreadable_notes_;
};

// "a, b, c, d, e and 3 more": the first few of a list of shapes, for notes.
std::string list_some_shapes(const std::vector<std::string>& shapes);

}  // namespace gemmtune::mamf
