#include "drivers/multi/worker_main.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "drivers/monitor/start_monitor.hpp"
#include "drivers/multi/worker_protocol.hpp"
#include "validator/collect.hpp"

namespace gemmtune {
namespace {

// The protocol's channel: the original stdout, kept apart from fd 1, which now goes to stderr.
class Channel {
 public:
  Channel() : fd_(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~Channel() {
    if (fd_ >= 0) ::close(fd_);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  void say(const WorkerMessage& message) const {
    const std::string line = encode_message(message) + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) std::_Exit(2);  // the coordinator is gone: nothing left to answer to
      done += static_cast<std::size_t>(n);
    }
  }

 private:
  int fd_;
};

// The monitor's note at start and its summary at the end, on stderr, each line naming the device
// ("[cuda device 1] ...") since every worker of a run writes to the same terminal.
void say_on_stderr(const std::string& device, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out += fmt::format("[{}] {}\n", device, text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  fmt::print(stderr, "{}", out);
}

WorkerMessage message(WorkerMessage::Kind kind, std::string key, std::string text) {
  WorkerMessage m;
  m.kind = kind;
  m.key = std::move(key);
  m.text = std::move(text);
  return m;
}

}  // namespace

FaultInjection FaultInjection::from_environment() {
  FaultInjection faults;
  if (const char* v = std::getenv("GEMMTUNE_TEST_CRASH_ON")) faults.crash_on = v;
  if (const char* v = std::getenv("GEMMTUNE_TEST_HANG_ON")) faults.hang_on = v;
  if (const char* v = std::getenv("GEMMTUNE_TEST_DEVICE_LOST_ON")) faults.device_lost_on = v;
  if (const char* v = std::getenv("GEMMTUNE_TEST_CRASH_AFTER_SAVE_ON")) {
    faults.crash_after_save_on = v;
  }
  if (const char* v = std::getenv("GEMMTUNE_TEST_SAVE_FAILS_ON_DEVICE")) {
    faults.save_fails_on_device = std::atoi(v);
  }
  if (const char* v = std::getenv("GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE")) {
    faults.hang_at_start_on_device = std::atoi(v);
  }
  return faults;
}

int run_worker(const TuneOptions& options, const FaultInjection& faults) {
  // The coordinator alone decides when a worker stops (it closes the input, or kills it on a
  // second request). A Ctrl-C, or the SIGTERM that timeout and Slurm send to the whole process
  // group, must not kill the problem in flight here: the coordinator lets it finish.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
  const Channel channel;
  using Kind = WorkerMessage::Kind;

  BackendSession session;
  Environment environment;
  std::unique_ptr<ResultsStore> store;
  WorkerMessage ready;
  while (options.device == faults.hang_at_start_on_device) ::pause();
  try {
    // A CPU worker (--workers N, or --devices with --backend cpu) plays device `options.device`;
    // its backend has one device. Under `auto` the device was asked for as a GPU.
    const bool plays_device = options.backend == BackendKind::Cpu;
    session = open_backend(options.backend, plays_device ? 0 : options.device);
    environment = collect_environment(*session.backend);
    store = open_results_store(options.output);
    const auto& props = session.backend->properties();
    ready.text = fmt::format("{} device {}: {}", props.backend, options.device, props.name);
  } catch (const std::exception& e) {
    channel.say(message(Kind::Error, {}, e.what()));
    return 3;
  }
  ready.kind = Kind::Ready;
  ready.tuning = describe_tuning(options.tuner);
  ready.environment = environment;
  channel.say(ready);

  monitor::MonitorOptions monitor_options;
  monitor_options.interval_ms = options.monitor_interval_ms;
  monitor::MonitorStart gpu = monitor::start_monitor_for(*session.backend, monitor_options);
  const std::string device =
      fmt::format("{} device {}", session.backend->properties().backend, options.device);
  if (!gpu.note.empty()) say_on_stderr(device, gpu.note);
  struct SummaryAtEnd {
    monitor::MonitorStart& gpu;
    const std::string& device;
    ~SummaryAtEnd() {
      if (!gpu.monitor) return;
      gpu.monitor->stop();
      try {
        say_on_stderr(device, monitor::format_monitor_summary(gpu.monitor->summary()));
      } catch (...) {  // a report that cannot be written is not worth a crash
      }
    }
  } summary_at_end{gpu, device};

  Tuner tuner(*session.backend, *session.registry, options.tuner);
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    Diagnostics diagnostics;
    auto entries = parse_untuned(line, "<coordinator>", diagnostics);
    if (entries.empty()) {
      channel.say(message(Kind::Failed, line.substr(0, line.find(',', line.find(',') + 1)),
                          diagnostics.format_all()));
      continue;
    }
    const UntunedEntry& entry = entries.front();
    const std::string key = problem_key(entry.op_signature, entry.params_signature);
    if (entry.params_signature == faults.crash_on) std::abort();
    while (entry.params_signature == faults.hang_on) ::pause();
    if (entry.params_signature == faults.device_lost_on) {
      channel.say(message(Kind::Fatal, key, "injected device loss (GEMMTUNE_TEST_DEVICE_LOST_ON)"));
      return 1;
    }

    std::optional<monitor::MeasurementWindow> window(std::in_place, gpu.monitor.get());
    TuningReport report = tuner.tune(entry.problem);
    window.reset();
    if (options.verbose) {
      // What `tune -v` prints on one device, each line naming this one.
      std::string text = key;
      for (const CandidateReport& c : report.candidates) text += "\n" + format_candidate_line(c);
      if (!report.phases.empty()) {
        text += fmt::format("\n{:.2f} s: {}", report.elapsed_s, describe_phases(report));
      }
      say_on_stderr(device, text);
    }
    if (!report.ok()) {
      channel.say(message(report.fatal ? Kind::Fatal : Kind::Failed, key, report.error));
      if (report.fatal) return 1;
      continue;
    }
    try {
      if (options.device == faults.save_fails_on_device) {
        throw std::runtime_error("injected save failure (GEMMTUNE_TEST_SAVE_FAILS_ON_DEVICE)");
      }
      store->append(environment,
                    {entry.op_signature, entry.params_signature, report.winner,
                     report.winner_stats.median_ms, entry.extra},
                    report.candidates);
    } catch (const std::exception& e) {
      // The device's output, not the problem, is what failed (disk full, a file that cannot be
      // written): every later winner here would be lost too. Fatal, so that the coordinator puts
      // the problem back for another device and stops feeding this one.
      channel.say(
          message(Kind::Fatal, key,
                  fmt::format("could not save the winner to {}: {}", options.output, e.what())));
      return 1;
    }
    if (entry.params_signature == faults.crash_after_save_on) std::abort();
    WorkerMessage ok = message(Kind::Ok, key, report.winner);
    ok.winner = report.winner_stats;
    ok.reference = report.default_stats;
    ok.elapsed_s = report.elapsed_s;
    channel.say(ok);
  }
  return 0;
}

}  // namespace gemmtune
