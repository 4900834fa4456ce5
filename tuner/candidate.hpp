// One solution competing in one tuning (the TuningRun's unit of work): the solution, its report as
// it stands, whether it is still in the running, and the samples of the last phase that measured
// it. Internal to the tuner.
#pragma once

#include <fmt/format.h>

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tuner/error.hpp"
#include "tuner/problem.hpp"
#include "tuner/result.hpp"
#include "tuner/solution.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune {

// A measuring phase's result for one candidate, kept to fall back on.
struct MeasuredSamples {
  std::vector<double> samples;
  std::vector<double> round_medians;
  Statistics stats;
  double tflops = 0;
};

struct Candidate {
  std::unique_ptr<Solution> solution;
  CandidateReport report;
  bool alive = true;  // still competing
  bool is_default = false;
  int screening_cut_after = 0;  // the samples after which screening cut it (screening_stops)
  std::vector<double> samples;  // of the last measuring phase, all rounds pooled
  // Of the last measuring phase, indexed by round; kNoRound where its caps were spent before it.
  std::vector<double> round_medians;

  MeasuredSamples measured() const { return {samples, round_medians, report.stats, report.tflops}; }
  void restore(MeasuredSamples m) {
    samples = std::move(m.samples);
    round_medians = std::move(m.round_medians);
    report.stats = m.stats;
    report.tflops = m.tflops;
  }
  // Out of the running as Failed, with the reason.
  void fail(std::string reason) {
    alive = false;
    report.disposition = Disposition::Failed;
    report.reason = std::move(reason);
  }
};

inline double tflops_at(const Problem& p, double median_ms) {
  return median_ms > 0 ? p.flops() / (median_ms * 1e9) : 0.0;
}

// Runs `body`, turning a candidate's exception into a Failed disposition. A DeviceError is not
// the candidate's fault and ends the problem.
template <class F>
bool guarded(Candidate& c, std::string_view what, F&& body) {
  try {
    body();
    return true;
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception& e) {
    c.fail(fmt::format("{} threw: {}", what, e.what()));
  } catch (...) {
    c.fail(fmt::format("{} threw an unknown exception", what));
  }
  return false;
}

}  // namespace gemmtune
