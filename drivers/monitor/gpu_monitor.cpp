#include "drivers/monitor/gpu_monitor.hpp"

#include "tuner/error.hpp"

namespace gemmtune::monitor {

namespace {

using Clock = std::chrono::steady_clock;

std::optional<MonitorSample> read_safely(SampleSource& source) noexcept {
  try {
    return source.sample();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

GpuMonitor::GpuMonitor(std::unique_ptr<SampleSource> source, std::chrono::milliseconds interval)
    : source_(std::move(source)),
      interval_(interval),
      limits_(source_ ? source_->limits() : DeviceLimits{}),
      started_(Clock::now()) {
  GEMMTUNE_EXPECT(source_ != nullptr, "GpuMonitor needs a sample source");
  GEMMTUNE_EXPECT(interval_.count() > 0, "GpuMonitor interval {} ms is not positive",
                  interval_.count());
  thread_ = std::thread([this] { run(); });
}

GpuMonitor::~GpuMonitor() {
  stop();
}

void GpuMonitor::stop() noexcept {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuMonitor::begin_measurement() noexcept {
  const std::lock_guard lock(mutex_);
  if (open_windows_++ == 0) window_sampled_ = false;
}

void GpuMonitor::end_measurement() noexcept {
  {
    const std::lock_guard lock(mutex_);
    if (open_windows_ == 0) return;
    if (--open_windows_ > 0 || window_sampled_) return;
    ended_unsampled_ = true;
    sample_now_ = true;
  }
  wake_.notify_all();
}

std::vector<MonitorSample> GpuMonitor::samples() const {
  const std::lock_guard lock(mutex_);
  return samples_;
}

std::size_t GpuMonitor::failed_samples() const {
  const std::lock_guard lock(mutex_);
  return failed_;
}

MonitorSummary GpuMonitor::summary(const SummaryOptions& options) const {
  MonitorSummary s = summarize(samples(), limits_, options);
  s.interval_ms = static_cast<double>(interval_.count());
  s.failed_samples = failed_samples();
  return s;
}

void GpuMonitor::run() {
  std::unique_lock lock(mutex_);
  auto due = Clock::now();
  // The first reading is taken even where stop() came before this thread ran (it is due at once):
  // a run with nothing to tune ends within milliseconds, and its summary would otherwise say
  // "throttled: unknown".
  do {
    if (!sample_now_ && Clock::now() < due) {
      wake_.wait_until(lock, due, [&] { return stopping_ || sample_now_; });
      continue;
    }
    const bool measuring = open_windows_ > 0 || ended_unsampled_;
    if (open_windows_ > 0) window_sampled_ = true;
    ended_unsampled_ = false;
    sample_now_ = false;
    lock.unlock();
    std::optional<MonitorSample> sample = read_safely(*source_);
    const auto now = Clock::now();
    lock.lock();
    if (sample) {
      sample->t_s = std::chrono::duration<double>(now - started_).count();
      sample->measuring = measuring;
      samples_.push_back(*sample);
    } else {
      ++failed_;
    }
    // Keep the schedule; after a call slower than the interval, start again from now rather than
    // catch up with a burst.
    if (now >= due) due = due + interval_ > now ? due + interval_ : now + interval_;
  } while (!stopping_);
}

}  // namespace gemmtune::monitor
