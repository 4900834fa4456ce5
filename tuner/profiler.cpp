#include "tuner/profiler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace gemmtune {

int next_chunk(const PhaseCaps& caps, int iterations_done, double elapsed_ms) {
  if (iterations_done == 0) return 1;  // at least one iteration, and a first sample to size by
  if (caps.empty()) return 0;
  long long remaining = std::numeric_limits<int>::max();
  if (caps.max_iterations > 0) remaining = caps.max_iterations - iterations_done;
  if (caps.max_duration_ms > 0) {
    const double left_ms = caps.max_duration_ms - elapsed_ms;
    if (left_ms <= 0) return 0;
    const double average = elapsed_ms / iterations_done;
    // Only as many as are expected to fit: the duration cap is never overshot on purpose. With a
    // zero average (a timer too coarse to see the work) the iteration cap alone decides.
    if (average > 0) {
      const double fit = std::floor(left_ms / average);
      remaining = std::min<long long>(remaining,
                                      fit >= 1e9 ? 1'000'000'000LL : static_cast<long long>(fit));
    } else if (caps.max_iterations <= 0) {
      // Bounded steps until time shows; a timer that never shows any (work below its resolution)
      // would otherwise keep a duration-only phase going forever.
      if (iterations_done >= kMaxUntimedIterations) return 0;
      remaining = std::min<long long>(remaining, 1000);
    }
  }
  // Bounded so that a timer never holds more than kMaxChunk pending event pairs.
  return remaining > 0 ? static_cast<int>(std::min<long long>(remaining, kMaxChunk)) : 0;
}

Measurement Profiler::run(Solution& solution, const Problem& problem, const PhaseCaps& caps,
                          const EarlyStop& stop) {
  Measurement m;
  auto timer = backend_.make_timer(mode_);
  void* stream = backend_.stream();
  const int max_chunk = mode_ == TimingMode::Queued ? kMaxQueuedChunk : kMaxChunk;
  double elapsed_ms = 0;
  const bool median_stop = stop.median_above_ms > 0 && stop.median_samples > 0;
  const auto next = [&] {
    const int done = static_cast<int>(m.samples_ms.size());
    int chunk = std::min(next_chunk(caps, done, elapsed_ms), max_chunk);
    if (median_stop && done < stop.median_samples)
      chunk = std::min(chunk, stop.median_samples - done);
    return chunk;
  };
  for (int chunk = next(); chunk > 0; chunk = next()) {
    for (int i = 0; i < chunk && m.status; ++i) {
      const Operands operands = operands_.next();
      if (flush_) backend_.flush_cache();
      timer->begin_iteration();
      m.status = solution.run(problem, operands, stream);
      timer->end_iteration();
    }
    const std::vector<double> samples = timer->collect_ms();
    if (!m.status) {
      // The failed iteration's sample is meaningless; keep the ones before it.
      m.samples_ms.insert(m.samples_ms.end(), samples.begin(),
                          samples.empty() ? samples.end() : samples.end() - 1);
      break;
    }
    m.samples_ms.insert(m.samples_ms.end(), samples.begin(), samples.end());
    elapsed_ms = std::accumulate(m.samples_ms.begin(), m.samples_ms.end(), 0.0);
    if (samples.size() != static_cast<std::size_t>(chunk)) break;  // a timer that lost samples
    const auto done = static_cast<int>(m.samples_ms.size());
    if ((stop.first_sample_above_ms > 0 && done == 1 &&
         m.samples_ms.front() > stop.first_sample_above_ms) ||
        (median_stop && done == stop.median_samples &&
         summarize(m.samples_ms).median_ms > stop.median_above_ms)) {
      m.cut_after = done;
      break;
    }
  }
  m.stats = summarize(m.samples_ms);
  return m;
}

Measurement Profiler::run_burst(Solution& solution, const Problem& problem, int iterations) {
  Measurement m;
  auto timer = backend_.make_timer(mode_);
  void* stream = backend_.stream();
  const int count =
      std::clamp(iterations, 1, mode_ == TimingMode::Queued ? kMaxQueuedChunk : kMaxChunk);
  timer->begin_iteration();
  for (int i = 0; i < count && m.status; ++i) {
    m.status = solution.run(problem, operands_.next(), stream);
  }
  timer->end_iteration();
  const std::vector<double> samples = timer->collect_ms();
  if (m.status && samples.size() == 1) m.samples_ms.push_back(samples.front() / count);
  m.stats = summarize(m.samples_ms);
  return m;
}

}  // namespace gemmtune
