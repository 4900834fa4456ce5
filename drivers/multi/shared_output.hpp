// SharedOutput: a multi-device run's side of sharing its output with the other `gemmtune tune`
// runs writing it (tune_claims.hpp), apart from the coordinator, so that which problems this run
// may tune now is decided in one place.
//
// Contract:
// - Problems are identified by their index in the run's list of problems to tune (`todo`).
// - take_up(): a problem taken from the queue is claimed in each claims file the run shares. Ours:
//   the claim is held and the run tunes it. Deferred: another run is tuning it; it is kept here
//   and looked at again by take_deferred(). SavedElsewhere: another run has saved it since this
//   run read the output; no claim is kept, and the caller counts it as already tuned.
// - take_deferred() looks at the deferred problems again, every 200 ms at most, and says once,
//   after 2 s of waiting, that the run waits for another run.
// - let_go() once the problem's result is in, it is back in the queue, or it is given up.
// - CSV: the gathered file's claims and those of each of the run's per-device files (which a
//   one-device run writing that file claims in), and the per-device, gathered and one-device
//   files are searched; SQLite: the database's claims and rows.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "drivers/multi/output_names.hpp"
#include "drivers/tune_claims.hpp"
#include "drivers/tune_run.hpp"
#include "tuner/environment.hpp"

namespace gemmtune {

class SharedOutput {
 public:
  // `ordinals`: the run's devices. `names`, `todo` and `observer` must outlive this object.
  SharedOutput(const OutputNames& names, const Environment& environment,
               const std::vector<int>& ordinals, const std::vector<const UntunedEntry*>& todo,
               TuneObserver& observer);

  enum class Taken { Ours, Deferred, SavedElsewhere };
  // Taken from the queue: whether this run is to tune it now. Not where another run on the same
  // output is tuning it now (deferred) or has saved it (counted as already tuned). The output is
  // searched only once the claim is ours: the claims file is small, the output may not be, and
  // what the output held when the run started is skipped already (resume).
  Taken take_up(std::size_t id);

  struct Looked {
    std::optional<std::size_t> taken;          // claimed, for an idle device
    std::vector<std::size_t> saved_elsewhere;  // to count as already tuned
  };
  // Looks at the deferred problems again (every 200 ms at most): those another run has saved end
  // as already tuned, and the first one it let go of without a result is claimed and returned,
  // for an idle device.
  Looked take_deferred();

  void let_go(std::size_t id);  // its result is in, or it is back in the queue or given up

  bool deferring() const { return !deferred_.empty(); }
  // Gives up waiting for the deferred problems (a stop, no device left) and returns them.
  std::vector<std::size_t> drop_deferred() { return std::exchange(deferred_, {}); }

  // Says, at the end, where claims did not always work.
  void say_trouble() const;

 private:
  // Whether the output (a database, or the CSV files a multi-device run gathers) holds the
  // problem now: another run on it may have saved it since this run read it.
  bool tuned_elsewhere(const UntunedEntry& e);
  // Claims the problem in each claims file this run shares: nullopt where it is now ours,
  // otherwise who holds it (and none of the claims is kept).
  std::optional<std::string> claim(const UntunedEntry& e);
  void release(const UntunedEntry& e);

  using Clock = std::chrono::steady_clock;

  const OutputNames& names_;
  Environment environment_;
  const std::vector<const UntunedEntry*>& todo_;
  TuneObserver& observer_;
  // Shared with the other tune runs on the same output (drivers/tune_claims.hpp): the problems
  // handed to this run's workers are claimed until their results are in.
  std::unique_ptr<TuneClaims> claims_;
  // CSV: the claims of each of this run's per-device files, which a one-device run writing that
  // file (`-o tunableop_results1.csv`) claims in: the two runs append to it, and must not append
  // one problem to it together.
  std::vector<std::unique_ptr<TuneClaims>> device_claims_;
  std::unique_ptr<ResultsStore> database_;  // a SQLite output, asked what it holds
  std::vector<std::size_t> deferred_;       // another run was tuning them when they came up
  std::string holder_;                      // who, for the note
  Clock::time_point deferred_looked_at_, waiting_since_;
  bool waiting_said_ = false;
};

}  // namespace gemmtune
