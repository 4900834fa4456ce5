#include "tuner/tuning_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

double mib(std::size_t bytes) {
  return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

// Why a solution's name cannot be written into a results line; none where it can.
std::optional<std::string> unwritable_name(std::string_view name) {
  if (name.empty()) return "its name is empty, which a results file cannot hold";
  for (const char ch : name) {
    if (ch == ',' || static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      return std::string(
          "its name holds a comma or a control character, which a results line cannot hold");
    }
  }
  return std::nullopt;
}

}  // namespace

TuningRun::TuningRun(Backend& backend, const Registry& registry, const TunerOptions& options,
                     TuningReport& report, const TuningProgress& progress)
    : backend_(backend),
      registry_(registry),
      options_(options),
      timing_(options.timing),
      report_(report),
      problem_(report.problem),
      progress_(progress) {}

void TuningRun::run() {
  if (auto why = problem_.invalid_reason()) {
    report_.error = fmt::format("invalid problem: {}", *why);
    return;
  }
  // Each phase timed, so that a tuning slower than expected says where (`phases`).
  const auto timed = [this](const char* name, auto&& step) {
    const auto start = std::chrono::steady_clock::now();
    const bool go_on = step();
    report_.phases.push_back(
        {name, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    return go_on;
  };
  const auto enumerate_and_drop = [&] {
    enumerate();
    return drop_unsupported();
  };
  const auto check = [&] {
    if (!check_reference()) return false;
    check_and_screen();
    return true;
  };
  if (!timed("enumerate", enumerate_and_drop) ||
      !timed("operands", [&] { return allocate_operands(); }) ||
      !timed("screen", [&] { return warm_up_and_screen(); }) || !timed("check", check) ||
      !timed("measure", [&] { return measure(); }) ||
      !timed("confirm", [&] { return confirm(); }) || !timed("trial", [&] { return trial(); }) ||
      !timed("burst", [&] { return burst_check(); })) {
    return;
  }
  timed("select", [&] {
    select();
    return true;
  });
}

void TuningRun::enumerate() {
  // Default first: it is the reference and the first "best so far" of screening.
  for (auto& s : registry_.enumerate(backend_.properties().backend, problem_, options_.search)) {
    Candidate c;
    c.solution = std::move(s);
    c.report.solution = c.solution->name();
    c.is_default = c.report.solution == kDefaultSolutionName;
    candidates_.push_back(std::move(c));
  }
  std::stable_partition(candidates_.begin(), candidates_.end(),
                        [](const Candidate& c) { return c.is_default; });
  total_ = static_cast<int>(candidates_.size());
}

bool TuningRun::drop_unsupported() {
  // Drop what cannot run, keeping the reason; a repeated name could not be told apart in a
  // results file, so only its first holder competes.
  std::set<std::string, std::less<>> names;
  for (auto& c : candidates_) {
    if (!names.insert(c.report.solution).second) {
      c.report.disposition = Disposition::Failed;
      c.report.reason = "another candidate has the same name";
      c.is_default = false;
      finish(c);
      continue;
    }
    // A results line is OP,PARAMS,SOLUTION,TIME: a name with a comma or a line break would make
    // the winner's line unreadable, and the problem be tuned again on every run.
    if (const auto bad = unwritable_name(c.report.solution)) {
      c.report.disposition = Disposition::Failed;
      c.report.reason = *bad;
      c.is_default = false;
      finish(c);
      continue;
    }
    Support support;
    std::size_t needs = 0;
    if (!guarded(c, "supports()", [&] {
          support = c.solution->supports(problem_);
          if (support) needs = c.solution->workspace_bytes(problem_);
        })) {
      finish(c);
      continue;
    }
    if (support && needs > options_.search.max_workspace_bytes) {
      support =
          Support::no(fmt::format("needs {:.1f} MiB of workspace, more than the {:.1f} MiB allowed",
                                  mib(needs), mib(options_.search.max_workspace_bytes)));
    }
    if (!support) {
      c.report.disposition = Disposition::Unsupported;
      c.report.reason = support.reason;
      finish(c);
      continue;
    }
    workspace_bytes_ = std::max(workspace_bytes_, needs);
  }
  auto default_it = std::find_if(candidates_.begin(), candidates_.end(),
                                 [](const Candidate& c) { return c.is_default; });
  if (default_it == candidates_.end()) {
    // Most likely its provider failed to enumerate: that failure is the news, not the absence.
    std::string failures;
    for (const auto& c : candidates_) {
      if (c.report.solution.ends_with(kEnumerationFailedSuffix)) {
        failures += fmt::format("; {}: {}", c.report.solution, c.report.reason);
      }
    }
    return end(fmt::format("no '{}' solution is registered for backend '{}'{}",
                           kDefaultSolutionName, backend_.properties().backend, failures));
  }
  if (!default_it->alive) {
    return end(fmt::format("'{}' cannot run this problem: {}", kDefaultSolutionName,
                           default_it->report.reason));
  }
  reference_ = &*default_it;
  return true;
}

bool TuningRun::allocate_operands() {
  // One set must fit next to the fixed buffers; rotation takes what the budget allows.
  const std::size_t available = backend_.available_memory_bytes();
  const OperandMemory memory =
      plan_operand_memory(backend_, problem_, workspace_bytes_, options_.memory_fraction,
                          timing_.rotating_buffer_mb, timing_.flush_cache);
  report_.rotation = memory.rotation;
  if (!report_.rotation.fits) {
    return end(fmt::format(
        "operands need {:.1f} MiB (+{:.1f} MiB workspace and check buffers), more than {:.0f}% of "
        "the {:.1f} MiB available on {}",
        mib(memory.set_bytes), mib(memory.fixed_bytes), 100 * options_.memory_fraction,
        mib(available), backend_.properties().name));
  }
  try {
    sets_.emplace(backend_, problem_, report_.rotation, workspace_bytes_, options_.seed,
                  options_.alpha, options_.beta);
  } catch (const DeviceError&) {
    throw;
  } catch (const std::exception& e) {
    return end(fmt::format("could not allocate the operands ({}): {}", report_.rotation.describe(),
                           e.what()));
  }
  profiler_.emplace(backend_, *sets_, report_.rotation.flush, timing_.mode);
  // Warmup runs each iteration as issued, whatever the timing mode: a library loads a kernel on
  // its first launch (CUDA's lazy loading), which waits for the device to go idle, and behind a
  // held stream that wait would last until the hold's timeout (0.1-2 s more per problem on an
  // H200, where hundreds of candidates each loaded theirs).
  warmup_profiler_.emplace(backend_, *sets_, report_.rotation.flush, TimingMode::Immediate);
  return true;
}

void TuningRun::finish(Candidate& c) {
  c.alive = false;
  ++done_;
  if (progress_) progress_(c.report, done_, total_);
}

void TuningRun::collect() {
  // Also where the problem ends early: candidates still in the running were never measured, and
  // say so instead of keeping the "slower" a report starts with.
  for (auto& c : candidates_) {
    if (c.alive && !report_.error.empty()) {
      c.report.disposition = Disposition::Failed;
      c.report.reason = fmt::format("not tuned: {}", report_.error);
      finish(c);
    }
    report_.candidates.push_back(c.report);
  }
}

bool TuningRun::end(std::string error) {
  report_.error = std::move(error);
  collect();
  return false;
}

bool TuningRun::reference_failed() {
  // Without its reference and baseline the problem cannot be tuned; what had not finished yet is
  // recorded as not tuned rather than left looking measured.
  Candidate& reference = *reference_;
  reference.report.disposition = Disposition::Failed;
  reference.alive = true;  // so that the loop below reports it once
  report_.error = fmt::format("'{}' failed: {}", kDefaultSolutionName, reference.report.reason);
  for (auto& c : candidates_) {
    if (!c.alive) continue;
    if (&c != &reference) {
      c.report.disposition = Disposition::Failed;
      c.report.reason = fmt::format("not tuned: '{}' failed", kDefaultSolutionName);
    }
    finish(c);
  }
  collect();
  return false;
}

bool TuningRun::phase(Candidate& c, const PhaseCaps& caps, std::string_view name, Measurement& out,
                      Profiler& with, const EarlyStop& stop) {
  if (!guarded(c, name, [&] { out = with.run(*c.solution, problem_, caps, stop); })) {
    return false;
  }
  if (out.status) return true;
  c.fail(fmt::format("{}: {}", name, out.status.error));
  c.report.stats = out.stats;
  return false;
}

}  // namespace gemmtune
