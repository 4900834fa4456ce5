#include "drivers/multi/work_queue.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gemmtune {

WorkQueue::WorkQueue(std::vector<double> costs, int max_deaths)
    : costs_(std::move(costs)),
      deaths_(costs_.size()),
      flying_(costs_.size(), false),
      max_deaths_(std::max(max_deaths, 1)) {
  std::vector<std::size_t> order(costs_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs_[a] > costs_[b]; });
  waiting_.assign(order.begin(), order.end());
}

std::optional<std::size_t> WorkQueue::take() {
  if (waiting_.empty()) return std::nullopt;
  const std::size_t id = waiting_.front();
  waiting_.pop_front();
  flying_[id] = true;
  ++in_flight_;
  return id;
}

void WorkQueue::finish(std::size_t id) {
  if (!flying_.at(id)) throw std::logic_error("WorkQueue::finish: problem not in flight");
  flying_[id] = false;
  --in_flight_;
}

WorkQueue::Lost WorkQueue::worker_lost(std::size_t id, std::string reason) {
  finish(id);
  deaths_[id].push_back(std::move(reason));
  if (static_cast<int>(deaths_[id].size()) >= max_deaths_) return Lost::GivenUp;
  waiting_.push_front(id);
  return Lost::Requeued;
}

std::vector<std::size_t> WorkQueue::drain() {
  std::vector<std::size_t> left(waiting_.begin(), waiting_.end());
  waiting_.clear();
  return left;
}

}  // namespace gemmtune
