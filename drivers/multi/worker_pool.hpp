// WorkerPool: the worker processes of a multi-device run, one per device — starting and
// restarting them (worker_command.hpp), reading what they say (worker_protocol.hpp), the time
// limit, retiring a device — so that the coordinator deals only in problems and their results.
//
// Contract:
// - Problems are identified by the caller's index; a device holds at most one at a time.
// - A device is Starting until its worker says ready with the run's tuning options and the
//   validators of the first device that did (environment()); a worker that reports others
//   retires its device.
// - serve() waits up to `timeout_ms` for the workers' messages and handles them, then kills the
//   workers that spent more than `problem_timeout_s` on their start or their problem. The
//   Listener hears, from within serve(), of each answer (ok or failed) to a problem handed out,
//   and of each worker that ended with a problem in flight; what becomes of the problem is its
//   business. A worker that breaks the protocol is killed.
// - A worker that ended is restarted up to `max_worker_restarts` times, unless stopping; a device
//   whose worker lost the device, or could not start, is retired.
// - stop(): nothing is restarted any more, and the workers still starting are killed.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/untuned_file.hpp"
#include "drivers/multi/output_names.hpp"
#include "drivers/multi/worker_process.hpp"
#include "drivers/multi/worker_protocol.hpp"
#include "drivers/tune_run.hpp"
#include "tuner/environment.hpp"

namespace gemmtune {

class WorkerPool {
 public:
  enum class State { Starting, Idle, Busy, Retired };

  class Listener {
   public:
    virtual ~Listener() = default;
    // The worker of `device` answered ok or failed to problem `id`; the device is idle again.
    virtual void on_answer(DeviceLoad& device, std::size_t id, const WorkerMessage& answer) = 0;
    // The worker of `device` ended with problem `id` in flight; `what` says how, for the report.
    virtual void on_lost(DeviceLoad& device, std::size_t id, const std::string& what) = 0;
  };

  // One device per ordinal of `options.devices`, each with its DeviceLoad appended to `devices`.
  // Every reference must outlive the pool.
  WorkerPool(const TuneOptions& options, const OutputNames& names, std::vector<DeviceLoad>& devices,
             TuneObserver& observer, Listener& listener);

  std::size_t size() const { return slots_.size(); }
  std::vector<int> ordinals() const;
  bool any(State state) const;
  // The validators of the first device whose worker became ready; set once one did.
  const Environment& environment() const { return *environment_; }

  // Starts every worker and waits until none is starting; false where a stop was requested first
  // (tune_stop_requested).
  bool start();
  void serve(int timeout_ms);
  // Hands problem `e` (`id`) to the first idle device; there must be one.
  void hand(std::size_t id, const UntunedEntry& e);

  void stop();
  bool stopping() const { return stopping_; }
  // Kills the workers busy or starting; whether one of them was busy.
  bool kill_in_flight();
  // Ends every worker's input and reaps it.
  void close();

 private:
  using Clock = std::chrono::steady_clock;

  struct Slot {
    int ordinal = 0;
    std::size_t load = 0;  // index into devices_
    std::unique_ptr<WorkerProcess> process;
    State state = State::Starting;
    std::optional<std::size_t> current;  // the problem in flight
    std::string key;                     // its problem_key, which its answer must name
    Clock::time_point since;
    bool timed_out = false;
    bool device_lost = false;
    std::string why;  // what the worker said or did wrong before it ended
    int restarts = 0;
  };

  void start(Slot& slot);
  void pump(int timeout_ms);
  void handle_line(Slot& slot, const std::string& line);
  void handle_exit(Slot& slot);
  void retire(Slot& slot, std::string reason);
  void check_timeouts();
  DeviceLoad& load(const Slot& slot) { return devices_[slot.load]; }

  const TuneOptions& options_;
  const OutputNames& names_;
  std::vector<DeviceLoad>& devices_;
  TuneObserver& observer_;
  Listener& listener_;
  std::string executable_;
  std::vector<Slot> slots_;
  std::optional<Environment> environment_;
  bool stopping_ = false;
};

}  // namespace gemmtune
