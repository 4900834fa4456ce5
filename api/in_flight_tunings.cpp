#include "api/in_flight_tunings.hpp"

namespace gemmtune::api {

InFlightTunings::Turn InFlightTunings::claim(const Problem& p, std::promise<Entry*>& mine) {
  if (auto it = inflight_.find(p); it != inflight_.end()) {
    if (it->second.tuner == std::this_thread::get_id()) return {Turn::Reentered, {}};
    return {Turn::Wait, it->second.done};
  }
  inflight_.emplace(p, InFlight{mine.get_future().share(), std::this_thread::get_id()});
  return {Turn::Tune, {}};
}

}  // namespace gemmtune::api
