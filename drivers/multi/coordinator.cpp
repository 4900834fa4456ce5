#include "drivers/multi/coordinator.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "db/results_store.hpp"
#include "drivers/multi/gather.hpp"
#include "drivers/multi/output_names.hpp"
#include "drivers/multi/shared_output.hpp"
#include "drivers/multi/work_queue.hpp"
#include "drivers/multi/worker_pool.hpp"
#include "drivers/multi/worker_protocol.hpp"
#include "drivers/tune_problems.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

using Kind = WorkerMessage::Kind;
using State = WorkerPool::State;

// Writing to a dead worker's pipe must be an error return, not a signal that ends the run.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &previous_);
  }
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &previous_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
};

class Coordinator : private WorkerPool::Listener {
 public:
  Coordinator(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
              TuneSummary& summary, TuneObserver& observer)
      : options_(options),
        entries_(entries),
        summary_(summary),
        observer_(observer),
        names_(options.output, options.shard),
        pool_(options, names_, summary.devices, observer, *this) {}

  void run(const std::string& command_line);

 private:
  void on_answer(DeviceLoad& device, std::size_t id, const WorkerMessage& answer) override;
  void on_lost(DeviceLoad& device, std::size_t id, const std::string& what) override;
  void stop_while_starting();
  void tune();
  void finish(const std::string& command_line, std::chrono::system_clock::time_point started);
  void dispatch();
  std::vector<const UntunedEntry*> resume();
  void fail(std::size_t id, std::string reason);
  void count_already_tuned(std::size_t id);
  // Taken from the queue: whether this run is to tune it now (SharedOutput::take_up).
  bool ours_to_tune(std::size_t id);
  std::optional<std::size_t> take_deferred();
  // Whether the device's output already holds the problem (its worker saved it, then ended).
  bool saved_by(const DeviceLoad& device, const UntunedEntry& e);

  const TuneOptions& options_;
  const std::vector<UntunedEntry>& entries_;
  TuneSummary& summary_;
  TuneObserver& observer_;
  OutputNames names_;
  WorkerPool pool_;
  std::vector<const UntunedEntry*> todo_;
  std::unique_ptr<WorkQueue> queue_;
  std::unique_ptr<SharedOutput> shared_;
  std::size_t results_ = 0;
  bool forced_stop_ = false;  // a second stop request killed the workers in flight
};

bool Coordinator::saved_by(const DeviceLoad& device, const UntunedEntry& e) {
  try {
    SignatureSet saved;
    add_tuned_signatures(*open_results_store(names_.per_device(device.ordinal)),
                         pool_.environment(), saved);
    return saved.count({e.op_signature, e.params_signature}) > 0;
  } catch (const std::exception&) {
    return false;  // unreadable: the problem goes back to the queue as before
  }
}

void Coordinator::fail(std::size_t id, std::string reason) {
  const UntunedEntry& e = *todo_[id];
  summary_.failed.push_back({e.op_signature, e.params_signature, std::move(reason)});
}

void Coordinator::count_already_tuned(std::size_t id) {
  queue_->finish(id);
  ++results_;
  ++summary_.already_tuned;
}

void Coordinator::on_answer(DeviceLoad& device, std::size_t id, const WorkerMessage& m) {
  const UntunedEntry& entry = *todo_[id];
  queue_->finish(id);
  shared_->let_go(id);
  ++results_;
  TuningReport report;
  report.problem = entry.problem;
  report.elapsed_s = m.elapsed_s;
  device.busy_s += m.elapsed_s;
  if (m.kind == Kind::Failed) {
    ++device.failed;
    report.error = m.text;
    fail(id, m.text);
    observer_.on_result(report);
    return;
  }
  report.winner = m.text;
  report.winner_stats = m.winner;
  report.default_stats = m.reference;
  ++device.tuned;
  device.flops += entry.problem.flops();
  observer_.on_result(report);
  summary_.tuned.push_back(std::move(report));
}

void Coordinator::on_lost(DeviceLoad& device, std::size_t id, const std::string& what) {
  // Let go whatever follows: saved, back in the queue (claimed again when taken), given up.
  shared_->let_go(id);
  ++device.worker_deaths;
  const UntunedEntry& e = *todo_[id];
  const bool saved = saved_by(device, e);
  if (pool_.stopping() && !saved) {
    queue_->finish(id);  // nothing more is handed out: not back in the queue
    ++results_;
    fail(id, fmt::format("interrupted: {}", what));
  } else if (saved) {
    // It died (or was killed for its time) between saving the winner and saying so: the problem
    // is tuned, and tuning it again would only add a second entry.
    queue_->finish(id);
    ++results_;
    ++summary_.already_tuned;
    observer_.on_note(fmt::format("{}: its winner was saved before {}; counted as already tuned",
                                  problem_key(e.op_signature, e.params_signature), what));
  } else if (queue_->worker_lost(id, what) == WorkQueue::Lost::GivenUp) {
    std::string reasons;
    for (const auto& d : queue_->deaths(id)) reasons += (reasons.empty() ? "" : "; ") + d;
    fail(id, fmt::format("killed {} workers, not retried: {}", queue_->deaths(id).size(), reasons));
    ++results_;
    observer_.on_note(
        fmt::format("{}: given up: {}", problem_key(e.op_signature, e.params_signature), reasons));
  } else {
    observer_.on_note(fmt::format("{}: back in the queue: {}",
                                  problem_key(e.op_signature, e.params_signature), what));
  }
}

bool Coordinator::ours_to_tune(std::size_t id) {
  const SharedOutput::Taken taken = shared_->take_up(id);
  if (taken == SharedOutput::Taken::SavedElsewhere) count_already_tuned(id);
  return taken == SharedOutput::Taken::Ours;
}

std::optional<std::size_t> Coordinator::take_deferred() {
  const SharedOutput::Looked looked = shared_->take_deferred();
  for (const std::size_t id : looked.saved_elsewhere) count_already_tuned(id);
  return looked.taken;
}

void Coordinator::dispatch() {
  while (pool_.any(State::Idle)) {
    std::optional<std::size_t> id;
    while (!id) {
      id = queue_->take();
      if (!id) break;
      if (!ours_to_tune(*id)) id.reset();
    }
    if (!id) id = take_deferred();
    if (!id) return;
    const UntunedEntry& e = *todo_[*id];
    observer_.on_problem(e, results_, todo_.size());
    pool_.hand(*id, e);
  }
}
std::vector<const UntunedEntry*> Coordinator::resume() {
  SignatureSet done;
  if (names_.sqlite()) {
    require_appendable(names_.per_device(0));
    add_tuned_signatures(*open_results_store(names_.per_device(0)), pool_.environment(), done);
  } else {
    // What this run writes must hold this environment; other devices' files count where they do.
    std::vector<std::filesystem::path> ours{names_.gathered()};
    for (const int ordinal : pool_.ordinals()) ours.push_back(names_.per_device(ordinal));
    for (const auto& path : ours) {
      require_appendable(path);
      add_tuned_signatures(*open_results_store(path), pool_.environment(), done);
    }
    // The copies are written only at the end: one that cannot be would be found after the work.
    for (const int ordinal : copy_ordinals(names_, pool_.ordinals())) {
      require_appendable(names_.copy(ordinal));
    }
    std::vector<std::filesystem::path> others;
    for (const auto& [ordinal, path] : names_.existing_per_device()) {
      if (std::find(ours.begin(), ours.end(), path) == ours.end()) others.push_back(path);
    }
    if (auto single = names_.existing_single_device()) others.push_back(*single);
    for (const auto& path : others) {
      try {
        add_tuned_signatures(*open_results_store(path), pool_.environment(), done);
      } catch (const ValidatorMismatchError&) {
        summary_.notes.push_back(
            fmt::format("{} holds another environment; not resumed from", path.string()));
      } catch (const InputError& e) {
        // Not this run's output (an old file of nothing readable, say): no reason to stop.
        summary_.notes.push_back(
            fmt::format("{} could not be used ({}); not resumed from", path.string(), e.what()));
      }
    }
  }
  std::vector<const UntunedEntry*> todo;
  for (const auto& e : entries_) {
    if (done.count({e.op_signature, e.params_signature})) {
      ++summary_.already_tuned;
    } else {
      todo.push_back(&e);
    }
  }
  return todo;
}

void Coordinator::stop_while_starting() {
  // A worker still starting holds no problem, so killing it loses nothing; its start could take
  // minutes.
  pool_.stop();
  summary_.interrupted = true;
  // Nothing was handed out: every problem is interrupted (the workers' environment, which says
  // what the outputs already hold, may not be known yet; a rerun skips what is tuned).
  for (const auto& e : entries_) {
    summary_.failed.push_back(
        {e.op_signature, e.params_signature, "interrupted while the workers started"});
  }
}

void Coordinator::tune() {
  todo_ = resume();
  shared_ = std::make_unique<SharedOutput>(names_, pool_.environment(), pool_.ordinals(), todo_,
                                           observer_);
  std::vector<double> costs;
  for (const auto* e : todo_) costs.push_back(problem_cost(e->problem));
  queue_ = std::make_unique<WorkQueue>(std::move(costs));
  const auto& first = *std::find_if(summary_.devices.begin(), summary_.devices.end(),
                                    [](const DeviceLoad& d) { return !d.description.empty(); });
  summary_.device = fmt::format("{} device(s) ({}{})", pool_.size(), first.description,
                                pool_.size() > 1 ? ", ..." : "");
  observer_.on_start(summary_.device, todo_.size(), summary_.already_tuned);

  while (true) {
    if (tune_stop_requested() && !pool_.stopping()) {
      // Interrupted only where something is left untuned: a stop after the last problem was
      // handed out lets the problems in flight end, and the run is complete (exit 0), as in a
      // one-device run.
      const std::vector<std::size_t> left = queue_->drain();
      summary_.interrupted = summary_.interrupted || !left.empty() || shared_->deferring();
      for (const std::size_t id : left) fail(id, "interrupted");
      for (const std::size_t id : shared_->drop_deferred()) {
        queue_->finish(id);
        fail(id, "interrupted");
      }
      // A worker being restarted holds no problem, and nothing more is handed out.
      pool_.stop();
      if (pool_.any(State::Busy)) {
        observer_.on_note("stopping after the problems in flight; interrupt again to stop those");
      }
    }
    if (pool_.stopping() && !forced_stop_ && tune_stop_requests() > 1) {
      // Asked twice: a problem in flight may take minutes, or hang with no --problem-timeout-s.
      forced_stop_ = true;
      if (pool_.kill_in_flight()) summary_.interrupted = true;
    }
    dispatch();
    if (!pool_.any(State::Busy) && !pool_.any(State::Starting)) {
      if (queue_->waiting() == 0 && !shared_->deferring()) break;
      if (!pool_.any(State::Idle)) {
        std::string reasons;
        for (const auto& d : summary_.devices) {
          reasons +=
              fmt::format("{}device {}: {}", reasons.empty() ? "" : "; ", d.ordinal, d.retired);
        }
        for (const std::size_t id : queue_->drain()) {
          fail(id, fmt::format("not tried: no device left ({})", reasons));
        }
        for (const std::size_t id : shared_->drop_deferred()) {
          queue_->finish(id);
          fail(id, fmt::format("not tried: no device left ({})", reasons));
        }
        break;
      }
    }
    pool_.serve(100);
  }
  shared_->say_trouble();
}

void Coordinator::finish(const std::string& command_line,
                         std::chrono::system_clock::time_point started) {
  if (names_.sqlite()) {
    auto store = open_results_store(names_.per_device(0));
    store->record_run({command_line, describe(options_), started, std::chrono::system_clock::now(),
                       summary_.interrupted  ? "interrupted"
                       : summary_.complete() ? "ok"
                                             : "partial"});
    summary_.outputs.push_back(store->path().string());
    return;
  }
  const std::vector<int> ordinals = pool_.ordinals();
  for (const int ordinal : ordinals) {
    const auto path = names_.per_device(ordinal);
    if (std::filesystem::exists(path)) summary_.outputs.push_back(path.string());
  }
  if (!queue_) return;  // stopped while the workers started: nothing new to gather
  GatherReport gathered = gather_device_files(names_, pool_.environment(), ordinals);
  summary_.outputs.insert(summary_.outputs.end(), gathered.written.begin(), gathered.written.end());
  summary_.notes.insert(summary_.notes.end(), gathered.notes.begin(), gathered.notes.end());
  summary_.stale_outputs = std::move(gathered.left);
}

void Coordinator::run(const std::string& command_line) {
  const auto started = std::chrono::system_clock::now();
  const IgnoreSigpipe ignore_sigpipe;
  // The database's schema is created once here, not by every worker at once.
  if (names_.sqlite()) open_results_store(names_.per_device(0));
  if (pool_.start()) {
    if (!pool_.any(State::Idle)) {
      std::string reasons;
      for (const auto& d : summary_.devices)
        reasons += fmt::format("\n  device {}: {}", d.ordinal, d.retired);
      throw InputError(fmt::format("no worker could start:{}", reasons));
    }
    tune();
  } else {
    stop_while_starting();
  }
  // Ready workers end at the end of their input; the ones killed above are reaped here.
  pool_.close();
  finish(command_line, started);
}

}  // namespace

void run_multi_tune(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
                    TuneSummary& summary, TuneObserver& observer, const std::string& command_line) {
  Coordinator(options, entries, summary, observer).run(command_line);
}

}  // namespace gemmtune
