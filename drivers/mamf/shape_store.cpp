#include "drivers/mamf/shape_store.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gemmtune::mamf {
namespace {

CandidateReport candidate(const ShapeResult& r, bool winner) {
  CandidateReport c;
  c.solution = r.solution;
  c.disposition = winner ? Disposition::Winner : Disposition::Slower;
  c.stats = r.stats;
  c.tflops = r.tflops.median;
  return c;
}

}  // namespace

std::string list_some_shapes(const std::vector<std::string>& shapes) {
  constexpr std::size_t kListed = 5;
  std::string listed;
  for (std::size_t i = 0; i < std::min(shapes.size(), kListed); ++i) {
    listed += (i ? ", " : "") + shapes[i];
  }
  if (shapes.size() > kListed) listed += fmt::format(" and {} more", shapes.size() - kListed);
  return listed;
}

ShapeStore::ShapeStore(const std::string& file, const Environment& environment)
    : store_(open_results_store(file)), environment_(environment) {
  require_appendable(store_->path());
  Diagnostics unreadable;
  add_tuned_signatures(*store_, environment_, stored_, &unreadable);
  for (const Diagnostic& d : unreadable.all()) {
    unreadable_notes_.push_back(fmt::format("{}:{}: {}", d.file, d.line, d.message));
  }
}

bool ShapeStore::add(const Problem& problem, const ShapeResult& base, const ShapeResult& best) {
  std::pair<std::string, std::string> key{problem.op_signature(), problem.params_signature()};
  if (added_.contains(key)) return false;  // a shape repeated in this sweep: stored the first time
  if (stored_.contains(key)) {
    kept_.push_back(base.shape.text());
    return false;
  }
  std::vector<CandidateReport> candidates{candidate(base, best.solution == base.solution)};
  if (best.solution != base.solution) candidates.push_back(candidate(best, true));
  store_->append(environment_, {key.first, key.second, best.solution, best.stats.median_ms, {}},
                 candidates);
  added_.insert(std::move(key));
  return true;
}

std::string ShapeStore::kept_note() const {
  if (kept_.empty()) return {};
  return fmt::format(
      "{}: already held {} shape(s), whose entries were kept as they were (this sweep's results "
      "for them are not stored; give --db another file to store them): {}",
      store_->path().string(), kept_.size(), list_some_shapes(kept_));
}

}  // namespace gemmtune::mamf
