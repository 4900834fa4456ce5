// GpuMonitor: samples a device every N ms on a background thread while a run measures, and marks
// which samples fell in measurement windows, so that the summary (monitor_summary.hpp) can say
// what the device did while the reported numbers were taken.
//
// Contract:
// - The first sample is taken as the monitor starts, then one every interval until stop(); a
//   source call that fails (nullopt) or throws is counted, not kept, and never ends the thread.
// - Measurement windows: between begin_measurement() and end_measurement() (or a
//   MeasurementWindow's lifetime) samples are marked `measuring`. A window shorter than the
//   interval that got no sample of its own gets one as it ends, so every window is seen at least
//   once. Windows may nest; they are meant to be opened by one thread.
// - stop() joins the thread and is idempotent; the destructor stops and never throws. samples()
//   and summary() may be called at any time, from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "drivers/monitor/monitor_sample.hpp"
#include "drivers/monitor/monitor_summary.hpp"
#include "drivers/monitor/sample_source.hpp"

namespace gemmtune::monitor {

class GpuMonitor {
 public:
  // `interval` must be positive.
  GpuMonitor(std::unique_ptr<SampleSource> source, std::chrono::milliseconds interval);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  void stop() noexcept;

  void begin_measurement() noexcept;
  void end_measurement() noexcept;

  std::vector<MonitorSample> samples() const;
  std::size_t failed_samples() const;
  const DeviceLimits& limits() const { return limits_; }
  std::chrono::milliseconds interval() const { return interval_; }

  // summarize() of the samples so far.
  MonitorSummary summary(const SummaryOptions& options = {}) const;

 private:
  void run();

  std::unique_ptr<SampleSource> source_;
  const std::chrono::milliseconds interval_;
  const DeviceLimits limits_;
  const std::chrono::steady_clock::time_point started_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool sample_now_ = false;  // a short window ended without a sample
  int open_windows_ = 0;
  bool window_sampled_ = false;   // the open window has had a sample
  bool ended_unsampled_ = false;  // the next sample stands for a window that has ended
  std::vector<MonitorSample> samples_;
  std::size_t failed_ = 0;
  std::thread thread_;  // last: started once everything above is ready
};

// Marks a measurement window for its lifetime; does nothing with a null monitor.
class MeasurementWindow {
 public:
  explicit MeasurementWindow(GpuMonitor* monitor) noexcept : monitor_(monitor) {
    if (monitor_ != nullptr) monitor_->begin_measurement();
  }
  ~MeasurementWindow() {
    if (monitor_ != nullptr) monitor_->end_measurement();
  }
  MeasurementWindow(const MeasurementWindow&) = delete;
  MeasurementWindow& operator=(const MeasurementWindow&) = delete;

 private:
  GpuMonitor* monitor_;
};

}  // namespace gemmtune::monitor
