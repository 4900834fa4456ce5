#include "drivers/multi/coordinator.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "db/results_store.hpp"
#include "drivers/multi/gather.hpp"
#include "drivers/multi/output_names.hpp"
#include "drivers/multi/work_queue.hpp"
#include "drivers/multi/worker_command.hpp"
#include "drivers/multi/worker_process.hpp"
#include "drivers/multi/worker_protocol.hpp"
#include "drivers/tune_claims.hpp"
#include "drivers/tune_problems.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;
using Kind = WorkerMessage::Kind;

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

struct Slot {
  enum class State { Starting, Idle, Busy, Retired };
  int ordinal = 0;
  std::size_t load = 0;  // index into summary.devices
  std::unique_ptr<WorkerProcess> process;
  State state = State::Starting;
  std::optional<std::size_t> current;  // the problem in flight
  Clock::time_point since;
  bool timed_out = false;
  bool device_lost = false;
  std::string why;  // what the worker said or did wrong before it ended
  int restarts = 0;
};

class Coordinator {
 public:
  Coordinator(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
              TuneSummary& summary, TuneObserver& observer)
      : options_(options),
        entries_(entries),
        summary_(summary),
        observer_(observer),
        names_(options.output, options.shard),
        executable_(options.worker_executable.empty() ? self_executable()
                                                      : options.worker_executable) {}

  void run(const std::string& command_line);

 private:
  void start(Slot& slot);
  bool start_workers();
  void stop_while_starting();
  void tune();
  void finish(const std::string& command_line, std::chrono::system_clock::time_point started);
  void pump(int timeout_ms);
  void handle_line(Slot& slot, const std::string& line);
  void handle_exit(Slot& slot);
  void retire(Slot& slot, std::string reason);
  void dispatch();
  void check_timeouts();
  bool any(Slot::State state) const;
  std::vector<const UntunedEntry*> resume();
  void fail(std::size_t id, std::string reason);
  // Taken from the queue: whether this run is to tune it now. Not where another run on the same
  // output is tuning it now (deferred_) or has saved it (counted as already tuned). The output is
  // searched only once the claim is ours: the claims file is small, the output may not be, and
  // what the output held when the run started is skipped already (resume).
  bool ours_to_tune(std::size_t id);
  // Whether the output (a database, or the CSV files a multi-device run gathers) holds the
  // problem now: another run on it may have saved it since this run read it.
  bool tuned_elsewhere(const UntunedEntry& e);
  // Looks at the deferred problems again (every 200 ms at most): those another run has saved end
  // as already tuned, and the first one it let go of without a result is claimed and returned,
  // for an idle device.
  std::optional<std::size_t> take_deferred();
  void let_go(std::size_t id);  // its result is in, or it is back in the queue or given up
  // Claims the problem in each claims file this run shares: nullopt where it is now ours,
  // otherwise who holds it (and none of the claims is kept).
  std::optional<std::string> claim(const UntunedEntry& e);
  void release(const UntunedEntry& e);
  void say_claims_trouble();
  // Whether the device's output already holds the problem (its worker saved it, then ended).
  bool saved_by(const Slot& slot, const UntunedEntry& e);
  DeviceLoad& load(const Slot& slot) { return summary_.devices[slot.load]; }

  const TuneOptions& options_;
  const std::vector<UntunedEntry>& entries_;
  TuneSummary& summary_;
  TuneObserver& observer_;
  OutputNames names_;
  std::string executable_;
  std::vector<Slot> slots_;
  std::optional<Environment> environment_;
  std::vector<const UntunedEntry*> todo_;
  std::unique_ptr<WorkQueue> queue_;
  // Shared with the other tune runs on the same output (drivers/tune_claims.hpp): the problems
  // handed to this run's workers are claimed until their results are in.
  std::unique_ptr<TuneClaims> claims_;
  // Where one of this run's per-device files is the file a one-device run given the same `-o`
  // writes (tunableop_results0.csv is device 0's), that run's claims too: the two runs append to
  // that file, and must not append one problem to it together.
  std::unique_ptr<TuneClaims> one_device_claims_;
  std::unique_ptr<ResultsStore> database_;  // a SQLite output, asked what it holds
  std::vector<std::size_t> deferred_;       // another run was tuning them when they came up
  std::string holder_;                      // who, for the note
  Clock::time_point deferred_looked_at_, waiting_since_;
  bool waiting_said_ = false;
  std::size_t results_ = 0;
  bool stopping_ = false;
  bool forced_stop_ = false;  // a second stop request killed the workers in flight
};

bool Coordinator::any(Slot::State state) const {
  return std::any_of(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.state == state; });
}

void Coordinator::start(Slot& slot) {
  slot.state = Slot::State::Starting;
  slot.current.reset();
  slot.timed_out = slot.device_lost = false;
  slot.why.clear();
  slot.since = Clock::now();
  const auto args =
      worker_arguments(executable_, options_, slot.ordinal, names_.per_device(slot.ordinal));
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  slot.process = WorkerProcess::spawn(
      args, worker_environment(options_, cores > 0 ? static_cast<int>(cores) : 1, std::getenv));
}

void Coordinator::retire(Slot& slot, std::string reason) {
  if (slot.process) slot.process->kill_now();
  slot.state = Slot::State::Retired;
  load(slot).retired = reason;
  observer_.on_note(fmt::format("device {} takes no more problems: {}", slot.ordinal, reason));
}

bool Coordinator::saved_by(const Slot& slot, const UntunedEntry& e) {
  try {
    SignatureSet saved;
    add_tuned_signatures(*open_results_store(names_.per_device(slot.ordinal)), *environment_,
                         saved);
    return saved.count({e.op_signature, e.params_signature}) > 0;
  } catch (const std::exception&) {
    return false;  // unreadable: the problem goes back to the queue as before
  }
}

void Coordinator::fail(std::size_t id, std::string reason) {
  const UntunedEntry& e = *todo_[id];
  summary_.failed.push_back({e.op_signature, e.params_signature, std::move(reason)});
}

void Coordinator::handle_line(Slot& slot, const std::string& line) {
  const DecodedMessage decoded = decode_message(line);
  if (!decoded.message) {
    slot.why = fmt::format("protocol error: {}", decoded.error);
    slot.process->kill_now();
    return;
  }
  const WorkerMessage& m = *decoded.message;
  if (m.kind == Kind::Error) {
    slot.why = m.text;
    return;
  }
  if (m.kind == Kind::Ready) {
    if (slot.state != Slot::State::Starting) {
      slot.why = "protocol error: ready twice";
      slot.process->kill_now();
      return;
    }
    if (m.tuning != describe_tuning(options_.tuner)) {
      return retire(slot,
                    fmt::format("its worker understood other tuning options:\n{}\nexpected:\n{}",
                                m.tuning, describe_tuning(options_.tuner)));
    }
    if (!environment_) environment_ = m.environment;
    if (!(m.environment == *environment_)) {
      const Comparison c = compare_environments(*environment_, m.environment);
      return retire(slot, fmt::format("its validators differ from the first device's ({}); tune "
                                      "different devices in separate runs",
                                      c.summarize_differences("first device", "this device")));
    }
    load(slot).description = m.text;
    slot.state = Slot::State::Idle;
    return;
  }
  // ok, failed, fatal: the answer to the problem in flight.
  if (slot.state != Slot::State::Busy || !slot.current ||
      m.key !=
          problem_key(todo_[*slot.current]->op_signature, todo_[*slot.current]->params_signature)) {
    slot.why = fmt::format("protocol error: an answer for '{}', which it was not given", m.key);
    slot.process->kill_now();
    return;
  }
  const std::size_t id = *slot.current;
  const UntunedEntry& entry = *todo_[id];
  if (m.kind == Kind::Fatal) {
    slot.why = fmt::format("the device failed: {}", m.text);
    slot.device_lost = true;
    return;  // the worker exits; handle_exit puts the problem back and retires the device
  }
  queue_->finish(id);
  let_go(id);
  slot.current.reset();
  slot.state = Slot::State::Idle;
  ++results_;
  TuningReport report;
  report.problem = entry.problem;
  report.elapsed_s = m.elapsed_s;
  load(slot).busy_s += m.elapsed_s;
  if (m.kind == Kind::Failed) {
    ++load(slot).failed;
    report.error = m.text;
    fail(id, m.text);
    observer_.on_result(report);
    return;
  }
  report.winner = m.text;
  report.winner_stats = m.winner;
  report.default_stats = m.reference;
  ++load(slot).tuned;
  load(slot).flops += entry.problem.flops();
  observer_.on_result(report);
  summary_.tuned.push_back(std::move(report));
}

void Coordinator::handle_exit(Slot& slot) {
  const std::string status = slot.process->wait();
  slot.process.reset();
  const bool was_starting = slot.state == Slot::State::Starting;
  std::string what =
      slot.timed_out ? fmt::format(
                           "took longer than --problem-timeout-s {} s on device {}; its worker was "
                           "killed",
                           options_.problem_timeout_s, slot.ordinal)
                     : fmt::format("the worker of device {} ended ({}){}", slot.ordinal, status,
                                   slot.why.empty() ? "" : ": " + slot.why);
  if (slot.current) {
    const std::size_t id = *slot.current;
    slot.current.reset();
    let_go(id);  // whatever follows: saved, back in the queue (claimed again when taken), given up
    ++load(slot).worker_deaths;
    const UntunedEntry& e = *todo_[id];
    const bool saved = saved_by(slot, e);
    if (stopping_ && !saved) {
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
      fail(id,
           fmt::format("killed {} workers, not retried: {}", queue_->deaths(id).size(), reasons));
      ++results_;
      observer_.on_note(fmt::format("{}: given up: {}",
                                    problem_key(e.op_signature, e.params_signature), reasons));
    } else {
      observer_.on_note(fmt::format("{}: back in the queue: {}",
                                    problem_key(e.op_signature, e.params_signature), what));
    }
  } else if (slot.state != Slot::State::Retired) {
    observer_.on_note(what);
  }
  if (slot.state == Slot::State::Retired) return;
  if (slot.device_lost) return retire(slot, slot.why);
  if (stopping_) {
    // Nothing more is handed out, so nothing is restarted; a worker killed while it started
    // (a stop holds no worker back that has no problem) says nothing about its device.
    slot.state = Slot::State::Retired;
    return;
  }
  if (was_starting) {
    // A worker that cannot start will not start the next time either.
    return retire(slot, fmt::format("its worker could not start: {}",
                                    slot.timed_out     ? "no answer within --problem-timeout-s"
                                    : slot.why.empty() ? status
                                                       : slot.why));
  }
  if (slot.restarts >= options_.max_worker_restarts) {
    return retire(slot,
                  fmt::format("its worker died {} time(s), restarted {} time(s) (limit "
                              "--max-worker-restarts {})",
                              slot.restarts + 1, slot.restarts, options_.max_worker_restarts));
  }
  ++slot.restarts;
  observer_.on_note(fmt::format("restarting the worker of device {} ({} of at most {})",
                                slot.ordinal, slot.restarts, options_.max_worker_restarts));
  start(slot);
}

void Coordinator::pump(int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<Slot*> owners;
  for (auto& slot : slots_) {
    if (slot.process && slot.process->output_fd() >= 0) {
      fds.push_back({slot.process->output_fd(), POLLIN, 0});
      owners.push_back(&slot);
    }
  }
  if (fds.empty()) return;
  if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) return;  // timeout or EINTR
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    Slot& slot = *owners[i];
    for (const auto& line : slot.process->read_lines()) {
      if (slot.process) handle_line(slot, line);
    }
    if (slot.process && slot.process->eof()) handle_exit(slot);
  }
}

void Coordinator::check_timeouts() {
  if (options_.problem_timeout_s <= 0) return;
  const auto limit = std::chrono::duration<double>(options_.problem_timeout_s);
  for (auto& slot : slots_) {
    const bool timed = slot.state == Slot::State::Busy || slot.state == Slot::State::Starting;
    if (timed && slot.process && !slot.timed_out && Clock::now() - slot.since > limit) {
      slot.timed_out = true;
      slot.process->kill_now();
    }
  }
}

bool Coordinator::tuned_elsewhere(const UntunedEntry& e) {
  try {
    if (database_) return database_->holds(*environment_, e.op_signature, e.params_signature);
    std::vector<std::filesystem::path> paths{names_.gathered()};
    for (const auto& [ordinal, path] : names_.existing_per_device()) paths.push_back(path);
    if (auto single = names_.existing_single_device()) paths.push_back(*single);
    return std::any_of(paths.begin(), paths.end(), [&](const std::filesystem::path& path) {
      return open_results_store(path)->holds(*environment_, e.op_signature, e.params_signature);
    });
  } catch (const std::exception&) {
    return false;  // a file being replaced, say: tuning the problem is what happens without a look
  }
}

bool Coordinator::ours_to_tune(std::size_t id) {
  const UntunedEntry& e = *todo_[id];
  const auto skip = [&] {
    queue_->finish(id);
    ++results_;
    ++summary_.already_tuned;
    return false;
  };
  if (auto other = claim(e)) {
    holder_ = std::move(*other);
    deferred_.push_back(id);
    return false;
  }
  // A run lets go of a problem only once its result is saved, so one that another run finished
  // since this run started is seen here.
  if (tuned_elsewhere(e)) {
    release(e);
    return skip();
  }
  return true;
}

std::optional<std::string> Coordinator::claim(const UntunedEntry& e) {
  if (auto other = claims_->claim(e.op_signature, e.params_signature)) return other;
  if (one_device_claims_) {
    if (auto other = one_device_claims_->claim(e.op_signature, e.params_signature)) {
      claims_->release(e.op_signature, e.params_signature);
      return other;
    }
  }
  return std::nullopt;
}

void Coordinator::release(const UntunedEntry& e) {
  claims_->release(e.op_signature, e.params_signature);
  if (one_device_claims_) one_device_claims_->release(e.op_signature, e.params_signature);
}

std::optional<std::size_t> Coordinator::take_deferred() {
  if (deferred_.empty()) return std::nullopt;
  // The claims file is polled, not each time a worker says something.
  if (Clock::now() - deferred_looked_at_ < std::chrono::milliseconds(200)) return std::nullopt;
  deferred_looked_at_ = Clock::now();
  if (waiting_since_ == Clock::time_point{}) waiting_since_ = Clock::now();
  const std::vector<std::size_t> looked_at = std::exchange(deferred_, {});
  std::optional<std::size_t> taken;
  for (const std::size_t id : looked_at) {
    if (taken) {
      deferred_.push_back(id);
    } else if (ours_to_tune(id)) {
      taken = id;
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
  return taken;
}

void Coordinator::let_go(std::size_t id) {
  release(*todo_[id]);
}

void Coordinator::say_claims_trouble() {
  for (const TuneClaims* claims : {claims_.get(), one_device_claims_.get()}) {
    if (claims == nullptr) continue;
    if (const std::string note = claims->sharing_note(); !note.empty()) observer_.on_note(note);
  }
}

void Coordinator::dispatch() {
  for (auto& slot : slots_) {
    if (slot.state != Slot::State::Idle) continue;
    std::optional<std::size_t> id;
    while (!id) {
      id = queue_->take();
      if (!id) break;
      if (!ours_to_tune(*id)) id.reset();
    }
    if (!id) id = take_deferred();
    if (!id) return;
    const UntunedEntry& e = *todo_[*id];
    std::string line = problem_key(e.op_signature, e.params_signature);
    for (const auto& extra : e.extra) line += "," + extra;
    slot.state = Slot::State::Busy;
    slot.current = *id;
    slot.since = Clock::now();
    observer_.on_problem(e, results_, todo_.size());
    // A worker that is gone fails the write; its end of file follows and puts the problem back.
    slot.process->send_line(line);
  }
}

std::vector<const UntunedEntry*> Coordinator::resume() {
  SignatureSet done;
  if (names_.sqlite()) {
    require_appendable(names_.per_device(0));
    add_tuned_signatures(*open_results_store(names_.per_device(0)), *environment_, done);
  } else {
    // What this run writes must hold this environment; other devices' files count where they do.
    std::vector<std::filesystem::path> ours{names_.gathered()};
    for (const auto& slot : slots_) ours.push_back(names_.per_device(slot.ordinal));
    for (const auto& path : ours) {
      require_appendable(path);
      add_tuned_signatures(*open_results_store(path), *environment_, done);
    }
    std::vector<std::filesystem::path> others;
    for (const auto& [ordinal, path] : names_.existing_per_device()) {
      if (std::find(ours.begin(), ours.end(), path) == ours.end()) others.push_back(path);
    }
    if (auto single = names_.existing_single_device()) others.push_back(*single);
    for (const auto& path : others) {
      try {
        add_tuned_signatures(*open_results_store(path), *environment_, done);
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

bool Coordinator::start_workers() {
  for (auto& slot : slots_) {
    if (tune_stop_requested()) return false;  // spawning hundreds takes a while
    start(slot);
  }
  // A start may take long (a GPU context) or hang, with no limit unless --problem-timeout-s:
  // the stop request is looked at after every wake-up (poll also wakes for the signal, EINTR).
  while (any(Slot::State::Starting)) {
    if (tune_stop_requested()) return false;
    pump(200);
    check_timeouts();
  }
  return true;  // a request from here on is the tuning loop's, which knows what is tuned
}

void Coordinator::stop_while_starting() {
  stopping_ = true;
  summary_.interrupted = true;
  for (auto& slot : slots_) {
    if (slot.process && slot.state == Slot::State::Starting) {
      // It holds no problem, so killing it loses nothing; its start could take minutes.
      slot.why = "stopped while it started";
      slot.process->kill_now();
    }
  }
  // Nothing was handed out: every problem is interrupted (the workers' environment, which says
  // what the outputs already hold, may not be known yet; a rerun skips what is tuned).
  for (const auto& e : entries_) {
    summary_.failed.push_back(
        {e.op_signature, e.params_signature, "interrupted while the workers started"});
  }
}

void Coordinator::tune() {
  todo_ = resume();
  if (names_.sqlite()) database_ = open_results_store(names_.per_device(0));
  claims_ = std::make_unique<TuneClaims>(names_.sqlite() ? names_.per_device(0) : names_.gathered(),
                                         *environment_);
  if (const auto ordinal = names_.single_device_ordinal();
      ordinal && std::any_of(slots_.begin(), slots_.end(),
                             [&](const Slot& s) { return s.ordinal == *ordinal; })) {
    one_device_claims_ = std::make_unique<TuneClaims>(names_.per_device(*ordinal), *environment_);
  }
  std::vector<double> costs;
  for (const auto* e : todo_) costs.push_back(problem_cost(e->problem));
  queue_ = std::make_unique<WorkQueue>(std::move(costs));
  const auto& first = *std::find_if(summary_.devices.begin(), summary_.devices.end(),
                                    [](const DeviceLoad& d) { return !d.description.empty(); });
  summary_.device = fmt::format("{} device(s) ({}{})", slots_.size(), first.description,
                                slots_.size() > 1 ? ", ..." : "");
  observer_.on_start(summary_.device, todo_.size(), summary_.already_tuned);

  while (true) {
    if (tune_stop_requested() && !stopping_) {
      stopping_ = true;
      // Interrupted only where something is left untuned: a stop after the last problem was
      // handed out lets the problems in flight end, and the run is complete (exit 0), as in a
      // one-device run.
      const std::vector<std::size_t> left = queue_->drain();
      summary_.interrupted = summary_.interrupted || !left.empty() || !deferred_.empty();
      for (const std::size_t id : left) fail(id, "interrupted");
      for (const std::size_t id : std::exchange(deferred_, {})) {
        queue_->finish(id);
        fail(id, "interrupted");
      }
      for (auto& slot : slots_) {
        if (slot.process && slot.state == Slot::State::Starting) {
          // A worker being restarted holds no problem, and nothing more is handed out.
          slot.why = "stopped while it started";
          slot.process->kill_now();
        }
      }
      if (any(Slot::State::Busy)) {
        observer_.on_note("stopping after the problems in flight; interrupt again to stop those");
      }
    }
    if (stopping_ && !forced_stop_ && tune_stop_requests() > 1) {
      // Asked twice: a problem in flight may take minutes, or hang with no --problem-timeout-s.
      forced_stop_ = true;
      for (auto& slot : slots_) {
        if (slot.process &&
            (slot.state == Slot::State::Busy || slot.state == Slot::State::Starting)) {
          summary_.interrupted = summary_.interrupted || slot.state == Slot::State::Busy;
          slot.why = "stopped by a second interrupt";
          slot.process->kill_now();
        }
      }
    }
    dispatch();
    if (!any(Slot::State::Busy) && !any(Slot::State::Starting)) {
      if (queue_->waiting() == 0 && deferred_.empty()) break;
      if (!any(Slot::State::Idle)) {
        std::string reasons;
        for (const auto& d : summary_.devices) {
          reasons +=
              fmt::format("{}device {}: {}", reasons.empty() ? "" : "; ", d.ordinal, d.retired);
        }
        for (const std::size_t id : queue_->drain()) {
          fail(id, fmt::format("not tried: no device left ({})", reasons));
        }
        for (const std::size_t id : std::exchange(deferred_, {})) {
          queue_->finish(id);
          fail(id, fmt::format("not tried: no device left ({})", reasons));
        }
        break;
      }
    }
    pump(100);
    check_timeouts();
  }
  say_claims_trouble();
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
  for (const auto& slot : slots_) {
    const auto path = names_.per_device(slot.ordinal);
    if (std::filesystem::exists(path)) summary_.outputs.push_back(path.string());
  }
  if (!queue_) return;  // stopped while the workers started: nothing new to gather
  std::vector<int> ordinals;
  for (const auto& slot : slots_) ordinals.push_back(slot.ordinal);
  GatherReport gathered = gather_device_files(names_, *environment_, ordinals);
  summary_.outputs.insert(summary_.outputs.end(), gathered.written.begin(), gathered.written.end());
  summary_.notes.insert(summary_.notes.end(), gathered.notes.begin(), gathered.notes.end());
  summary_.stale_outputs = std::move(gathered.left);
}

void Coordinator::run(const std::string& command_line) {
  const auto started = std::chrono::system_clock::now();
  const IgnoreSigpipe ignore_sigpipe;
  for (const int ordinal : options_.devices) {
    slots_.push_back({});
    slots_.back().ordinal = ordinal;
    slots_.back().load = summary_.devices.size();
    summary_.devices.push_back({});
    summary_.devices.back().ordinal = ordinal;
  }
  // The database's schema is created once here, not by every worker at once.
  if (names_.sqlite()) open_results_store(names_.per_device(0));
  if (start_workers()) {
    if (!any(Slot::State::Idle)) {
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
  for (auto& slot : slots_) {
    if (slot.process) {
      slot.process->close_input();
      slot.process->wait();
      slot.process.reset();
    }
  }
  finish(command_line, started);
}

}  // namespace

void run_multi_tune(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
                    TuneSummary& summary, TuneObserver& observer, const std::string& command_line) {
  Coordinator(options, entries, summary, observer).run(command_line);
}

}  // namespace gemmtune
