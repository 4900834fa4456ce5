// WorkQueue: the problems of a multi-device run that are still to be tuned, one shared queue
// from which every free worker takes the largest waiting problem — so that fast devices take more
// and the last problems handed out are the small ones, and devices finish close together (greedy
// longest-processing-time list scheduling).
//
// Contract:
// - Problems are identified by their index in the caller's list; costs are estimates
//   (problem_cost). take() hands out the costliest waiting problem (ties: the lower index) and
//   marks it in flight; finish() ends it, whatever the tuner made of it (a problem the tuner could
//   not tune is a result, not a fault, and is never retried).
// - worker_lost(): the worker running the problem died — crashed, was killed, exceeded the time
//   limit. The first time, the problem goes back to the head of the queue for the next free
//   worker. At the `max_deaths`-th death (2 by default) it is given up, since a problem that kills
//   every worker it meets would otherwise take down the whole run; the reasons of its deaths are
//   kept for the report.
// - drain() gives up everything still waiting (no worker left, interrupted) and returns it.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace gemmtune {

class WorkQueue {
 public:
  explicit WorkQueue(std::vector<double> costs, int max_deaths = 2);

  std::optional<std::size_t> take();
  void finish(std::size_t id);

  enum class Lost { Requeued, GivenUp };
  Lost worker_lost(std::size_t id, std::string reason);

  std::vector<std::size_t> drain();

  std::size_t waiting() const { return waiting_.size(); }
  std::size_t in_flight() const { return in_flight_; }
  double cost(std::size_t id) const { return costs_.at(id); }
  // Why the workers that ran `id` died, in order.
  const std::vector<std::string>& deaths(std::size_t id) const { return deaths_.at(id); }

 private:
  std::vector<double> costs_;
  std::vector<std::vector<std::string>> deaths_;
  std::deque<std::size_t> waiting_;  // costliest first
  std::vector<bool> flying_;
  std::size_t in_flight_ = 0;
  int max_deaths_;
};

}  // namespace gemmtune
