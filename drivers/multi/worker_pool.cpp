#include "drivers/multi/worker_pool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "drivers/multi/worker_command.hpp"
#include "validator/compare.hpp"

namespace gemmtune {

namespace {
using Kind = WorkerMessage::Kind;
}  // namespace

WorkerPool::WorkerPool(const TuneOptions& options, const OutputNames& names,
                       std::vector<DeviceLoad>& devices, TuneObserver& observer, Listener& listener)
    : options_(options),
      names_(names),
      devices_(devices),
      observer_(observer),
      listener_(listener),
      executable_(options.worker_executable.empty() ? self_executable()
                                                    : options.worker_executable) {
  for (const int ordinal : options_.devices) {
    slots_.push_back({});
    slots_.back().ordinal = ordinal;
    slots_.back().load = devices_.size();
    devices_.push_back({});
    devices_.back().ordinal = ordinal;
  }
}

std::vector<int> WorkerPool::ordinals() const {
  std::vector<int> ordinals;
  for (const auto& slot : slots_) ordinals.push_back(slot.ordinal);
  return ordinals;
}

bool WorkerPool::any(State state) const {
  return std::any_of(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.state == state; });
}

void WorkerPool::start(Slot& slot) {
  slot.state = State::Starting;
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

bool WorkerPool::start() {
  for (auto& slot : slots_) {
    if (tune_stop_requested()) return false;  // spawning hundreds takes a while
    start(slot);
  }
  // A start may take long (a GPU context) or hang, with no limit unless --problem-timeout-s:
  // the stop request is looked at after every wake-up (poll also wakes for the signal, EINTR).
  while (any(State::Starting)) {
    if (tune_stop_requested()) return false;
    serve(200);
  }
  return true;  // a request from here on is the tuning loop's, which knows what is tuned
}

void WorkerPool::retire(Slot& slot, std::string reason) {
  if (slot.process) slot.process->kill_now();
  slot.state = State::Retired;
  load(slot).retired = reason;
  observer_.on_note(fmt::format("device {} takes no more problems: {}", slot.ordinal, reason));
}

void WorkerPool::handle_line(Slot& slot, const std::string& line) {
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
    if (slot.state != State::Starting) {
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
    slot.state = State::Idle;
    return;
  }
  // ok, failed, fatal: the answer to the problem in flight.
  if (slot.state != State::Busy || !slot.current || m.key != slot.key) {
    slot.why = fmt::format("protocol error: an answer for '{}', which it was not given", m.key);
    slot.process->kill_now();
    return;
  }
  const std::size_t id = *slot.current;
  if (m.kind == Kind::Fatal) {
    slot.why = fmt::format("the device failed: {}", m.text);
    slot.device_lost = true;
    return;  // the worker exits; handle_exit has the problem put back and retires the device
  }
  slot.current.reset();
  slot.state = State::Idle;
  listener_.on_answer(load(slot), id, m);
}

void WorkerPool::handle_exit(Slot& slot) {
  const std::string status = slot.process->wait();
  slot.process.reset();
  const bool was_starting = slot.state == State::Starting;
  std::string what;
  if (slot.timed_out && was_starting) {
    what = fmt::format(
        "the worker of device {} did not start within --problem-timeout-s {} s; "
        "it was killed",
        slot.ordinal, options_.problem_timeout_s);
  } else if (slot.timed_out) {
    what = fmt::format(
        "took longer than --problem-timeout-s {} s on device {}; its worker was "
        "killed",
        options_.problem_timeout_s, slot.ordinal);
  } else {
    what = fmt::format("the worker of device {} ended ({}){}", slot.ordinal, status,
                       slot.why.empty() ? "" : ": " + slot.why);
  }
  if (slot.current) {
    const std::size_t id = *slot.current;
    slot.current.reset();
    listener_.on_lost(load(slot), id, what);
  } else if (slot.state != State::Retired) {
    observer_.on_note(what);
  }
  if (slot.state == State::Retired) return;
  if (slot.device_lost) return retire(slot, slot.why);
  if (stopping_) {
    // Nothing more is handed out, so nothing is restarted; a worker killed while it started
    // (a stop holds no worker back that has no problem) says nothing about its device.
    slot.state = State::Retired;
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

void WorkerPool::serve(int timeout_ms) {
  pump(timeout_ms);
  check_timeouts();
}

void WorkerPool::pump(int timeout_ms) {
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

void WorkerPool::check_timeouts() {
  if (options_.problem_timeout_s <= 0) return;
  const auto limit = std::chrono::duration<double>(options_.problem_timeout_s);
  for (auto& slot : slots_) {
    const bool timed = slot.state == State::Busy || slot.state == State::Starting;
    if (timed && slot.process && !slot.timed_out && Clock::now() - slot.since > limit) {
      slot.timed_out = true;
      slot.process->kill_now();
    }
  }
}

void WorkerPool::hand(std::size_t id, const UntunedEntry& e) {
  const auto idle = std::find_if(slots_.begin(), slots_.end(),
                                 [](const Slot& s) { return s.state == State::Idle; });
  Slot& slot = *idle;
  slot.key = problem_key(e.op_signature, e.params_signature);
  std::string line = slot.key;
  for (const auto& extra : e.extra) line += "," + extra;
  slot.state = State::Busy;
  slot.current = id;
  slot.since = Clock::now();
  // A worker that is gone fails the write; its end of file follows and puts the problem back.
  slot.process->send_line(line);
}

void WorkerPool::stop() {
  stopping_ = true;
  for (auto& slot : slots_) {
    if (slot.process && slot.state == State::Starting) {
      slot.why = "stopped while it started";
      slot.process->kill_now();
    }
  }
}

bool WorkerPool::kill_in_flight() {
  bool busy = false;
  for (auto& slot : slots_) {
    if (slot.process && (slot.state == State::Busy || slot.state == State::Starting)) {
      busy = busy || slot.state == State::Busy;
      slot.why = "stopped by a second interrupt";
      slot.process->kill_now();
    }
  }
  return busy;
}

void WorkerPool::close() {
  for (auto& slot : slots_) {
    if (slot.process) {
      slot.process->close_input();
      slot.process->wait();
      slot.process.reset();
    }
  }
}

}  // namespace gemmtune
