#include "drivers/multi/shared_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>

namespace gemmtune {

SharedOutput::SharedOutput(const OutputNames& names, const Environment& environment,
                           const std::vector<int>& ordinals,
                           const std::vector<const UntunedEntry*>& todo, TuneObserver& observer)
    : names_(names), environment_(environment), todo_(todo), observer_(observer) {
  if (names_.sqlite()) database_ = open_results_store(names_.per_device(0));
  claims_ = std::make_unique<TuneClaims>(names_.sqlite() ? names_.per_device(0) : names_.gathered(),
                                         environment_);
  // A one-device run whose -o is one of this run's per-device files (`-o res1.csv` beside
  // `-o res0.csv --gpus 2`) claims in that file's claims only: this run claims there too, for
  // each of its devices, so that the two never append one problem to that file together.
  if (!names_.sqlite()) {
    for (const int ordinal : ordinals) {
      device_claims_.push_back(
          std::make_unique<TuneClaims>(names_.per_device(ordinal), environment_));
    }
  }
}

bool SharedOutput::tuned_elsewhere(const UntunedEntry& e) {
  try {
    if (database_) return database_->holds(environment_, e.op_signature, e.params_signature);
    std::vector<std::filesystem::path> paths{names_.gathered()};
    for (const auto& [ordinal, path] : names_.existing_per_device()) paths.push_back(path);
    if (auto single = names_.existing_single_device()) paths.push_back(*single);
    return std::any_of(paths.begin(), paths.end(), [&](const std::filesystem::path& path) {
      return open_results_store(path)->holds(environment_, e.op_signature, e.params_signature);
    });
  } catch (const std::exception&) {
    return false;  // a file being replaced, say: tuning the problem is what happens without a look
  }
}

SharedOutput::Taken SharedOutput::take_up(std::size_t id) {
  const UntunedEntry& e = *todo_[id];
  if (auto other = claim(e)) {
    holder_ = std::move(*other);
    deferred_.push_back(id);
    return Taken::Deferred;
  }
  // A run lets go of a problem only once its result is saved, so one that another run finished
  // since this run started is seen here.
  if (tuned_elsewhere(e)) {
    release(e);
    return Taken::SavedElsewhere;
  }
  return Taken::Ours;
}

std::optional<std::string> SharedOutput::claim(const UntunedEntry& e) {
  if (auto other = claims_->claim(e.op_signature, e.params_signature)) return other;
  for (std::size_t i = 0; i < device_claims_.size(); ++i) {
    if (auto other = device_claims_[i]->claim(e.op_signature, e.params_signature)) {
      claims_->release(e.op_signature, e.params_signature);
      for (std::size_t j = 0; j < i; ++j) {
        device_claims_[j]->release(e.op_signature, e.params_signature);
      }
      return other;
    }
  }
  return std::nullopt;
}

void SharedOutput::release(const UntunedEntry& e) {
  claims_->release(e.op_signature, e.params_signature);
  for (const auto& claims : device_claims_) claims->release(e.op_signature, e.params_signature);
}

SharedOutput::Looked SharedOutput::take_deferred() {
  Looked looked;
  if (deferred_.empty()) return looked;
  // The claims file is polled, not each time a worker says something.
  if (Clock::now() - deferred_looked_at_ < std::chrono::milliseconds(200)) return looked;
  deferred_looked_at_ = Clock::now();
  if (waiting_since_ == Clock::time_point{}) waiting_since_ = Clock::now();
  const std::vector<std::size_t> looked_at = std::exchange(deferred_, {});
  for (const std::size_t id : looked_at) {
    if (looked.taken) {
      deferred_.push_back(id);
      continue;
    }
    switch (take_up(id)) {
      case Taken::Ours:
        looked.taken = id;
        break;
      case Taken::SavedElsewhere:
        looked.saved_elsewhere.push_back(id);
        break;
      case Taken::Deferred:
        break;
    }
  }
  if (deferred_.empty()) {  // the next wait is said after its own 2 s
    waiting_since_ = {};
    waiting_said_ = false;
  }
  if (!deferred_.empty() && !waiting_said_ &&
      Clock::now() - waiting_since_ > std::chrono::seconds(2)) {
    observer_.on_note(fmt::format(
        "waiting for {} problem(s) that another tune of this output is tuning ({}; claims in {})",
        deferred_.size(), holder_, claims_->path().string()));
    waiting_said_ = true;
  }
  return looked;
}

void SharedOutput::let_go(std::size_t id) {
  release(*todo_[id]);
}

void SharedOutput::say_trouble() const {
  std::vector<const TuneClaims*> all{claims_.get()};
  for (const auto& claims : device_claims_) all.push_back(claims.get());
  for (const TuneClaims* claims : all) {
    if (const std::string note = claims->sharing_note(); !note.empty()) observer_.on_note(note);
  }
}

}  // namespace gemmtune
