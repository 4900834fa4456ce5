#include "api/held_results.hpp"

#include <fmt/format.h>

namespace gemmtune::api {

void HeldResults::set_path(std::string path) {
  path_ = std::move(path);
  append_warned_ = false;
}

void HeldResults::add_loaded(const ResultEntry& line) {
  table_.upsert(line);
  // Loaded over a result tuned here, it is a loaded one now: on write_file it gives way to the
  // file's, which may be newer.
  tuned_here_.erase({line.op_signature, line.params_signature});
}

void HeldResults::add_tuned(const ResultEntry& line,
                            const std::vector<CandidateReport>& candidates) {
  table_.upsert(line);
  tuned_here_.emplace(line.op_signature, line.params_signature);
  try {
    if (store_ == nullptr || store_path_ != path_) {
      store_.reset();
      store_ = open_results_store(path_);
      store_path_ = path_;
    }
    store_->append(environment_, line, candidates);
  } catch (const std::exception& ex) {
    store_.reset();
    if (!append_warned_) {
      log_(
          fmt::format("cannot append to {} ({}); results tuned here are kept in memory "
                      "(write_file saves them elsewhere)",
                      path_, ex.what()));
    }
    append_warned_ = true;
  }
}

HeldResults::Snapshot HeldResults::snapshot() const {
  Snapshot s;
  s.table = table_;
  s.table.environment = environment_;
  s.tuned_here = tuned_here_;
  return s;
}

}  // namespace gemmtune::api
