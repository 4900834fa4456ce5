// InFlightTunings: the problems being tuned now, each by one thread, so that a problem several
// threads meet at once is tuned once: the others wait for its result. Not thread-safe: the Context
// claims and finishes under its writer mutex, and waits for or hands out a result after letting
// go of it (the tuning publishes its result under that mutex).
#pragma once

#include <future>
#include <thread>
#include <unordered_map>

#include "api/lookup_table.hpp"
#include "tuner/problem.hpp"

namespace gemmtune::api {

class InFlightTunings {
 public:
  struct Turn {
    enum Kind {
      Tune,       // nobody tunes it: this thread does now, and must finish() it
      Wait,       // another thread tunes it: `result` is what it will give
      Reentered,  // this very thread tunes it already
    } kind;
    std::shared_future<Entry*> result;
  };
  // `mine` is the caller's promise, which its waiters wait on where the caller is to tune `p`. The
  // caller makes it before it takes the writer mutex, so that its allocation is not under the lock.
  Turn claim(const Problem& p, std::promise<Entry*>& mine);

  // The tuner's, however its tuning ended: `p` is no longer in flight. The caller then sets the
  // value of the promise it claimed with, once it has let go of the writer mutex.
  void finish(const Problem& p) { inflight_.erase(p); }

 private:
  // A tuning in progress: its result to come, and the thread that tunes it.
  struct InFlight {
    std::shared_future<Entry*> done;
    std::thread::id tuner;
  };
  std::unordered_map<Problem, InFlight, ProblemHash> inflight_;
};

}  // namespace gemmtune::api
