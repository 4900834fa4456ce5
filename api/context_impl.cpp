// Context::Impl: the slow path of a first-seen problem (tune once, record once) and the locks
// around the results and untuned files. See include/gemmtune/context.hpp for the contract and
// api/lookup_table.hpp for the hot path.
#include "api/context_impl.hpp"

#include <algorithm>
#include <future>
#include <optional>
#include <stdexcept>

#include "api/call_checks.hpp"
#include "api/problem_key.hpp"
#include "db/same_file.hpp"

namespace gemmtune {
using namespace context_flags;
using api::signature;

Context::Impl::Impl(Options o) : options(std::move(o)), log(options.log, flags) {
  for (const auto& w : options.warnings) log(w);
  check = parse_numerical_check(options.numerical_check);  // checked by the Context's constructor
  flags.store((options.enabled ? kEnabled : 0) | (options.tuning ? kTuning : 0) |
              (options.record_untuned ? kRecord : 0) | (options.verbose ? kVerbose : 0));
  write_on_exit.store(options.write_file_on_exit);
  // The application's thread stays on its own device; what needs ours holds make_current().
  session =
      open_backend(parse_backend_kind(options.backend), options.device, CurrentDevice::Callers);
  backend_name = session.backend->properties().backend;
  for (const auto& provider : session.registry->providers_for(backend_name)) {
    own_providers.emplace_back(provider->name());
  }
  for (const auto& provider : options.providers) add_provider(provider);
  environment = collect_environment(*session.backend);
  results.set_environment(environment);
  // Default is rebuilt under the limits a tuning here has: the same heuristic pick it measured.
  dispatch = std::make_unique<api::Dispatcher>(session, backend_name, tuner_options().search, log);
  const auto ordinal = [&](const std::string& name) {
    return options.insert_device_ordinal ? with_device_ordinal(name, options.device) : name;
  };
  results.set_path(ordinal(options.filename));
  recorder.set_path(ordinal(options.untuned_filename));
  if (verbose()) {
    log(fmt::format(
        "{} device {} ({}); results {}, untuned {}; enabled={} tuning={} "
        "record_untuned={}",
        backend_name, options.device, session.backend->properties().name, results.path(),
        recorder.path(), options.enabled, options.tuning, options.record_untuned));
  }
  load(results.path());
}

void Context::Impl::add_provider(std::shared_ptr<SolutionProvider> provider) {
  if (provider == nullptr) throw std::invalid_argument("a null SolutionProvider cannot be added");
  const std::string name(provider->name());
  if (provider->backend() == backend_name &&
      std::find(own_providers.begin(), own_providers.end(), name) != own_providers.end()) {
    log(
        fmt::format("provider '{}' replaces gemmtune's own {} provider of that name and its "
                    "solutions (Default too, where that one gave it: then yours must); give yours "
                    "another name to add to them instead",
                    name, backend_name));
  } else if (provider->backend() != backend_name) {
    log(fmt::format("provider '{}' is for backend '{}'; this Context runs '{}', so it is not used",
                    name, provider->backend(), backend_name));
  }
  session.registry->add(std::move(provider));
}

Context::Impl::~Impl() {
  if (write_on_exit.load()) {
    try {
      std::string path;
      {
        const api::ContextLock lock(writer);
        path = results.path();
      }
      write(path);
    } catch (const std::exception& e) {
      log(fmt::format("write_file_on_exit: {}", e.what()));
    }
  }
}

// ---- hot path -----------------------------------------------------------------------------

RunStatus Context::Impl::gemm(const Problem& caller, const Operands& ops, void* stream) {
  if (auto why = api::missing_operand(caller, ops)) {
    return RunStatus::failure(fmt::format("{}: {}", signature(caller), *why));
  }
  Problem scratch;
  const Problem& p = api::lookup_key(caller, scratch);  // the same layout, as files spell it
  const std::uint64_t h = api::fast_hash(p);
  const unsigned f = flags.load(std::memory_order_relaxed);
  api::Entry* e = tables.current()->find(p, h);
  const bool needs_slow_path =
      e == nullptr || ((f & kEnabled) && e->kind == api::EntryKind::Untuned &&
                       (((f & kTuning) && !e->tuning_attempted.load(std::memory_order_relaxed)) ||
                        ((f & kRecord) && !e->recorded.load(std::memory_order_relaxed))));
  if (needs_slow_path) {
    // Checked where a problem is met, not on every call: an invalid one gets no entry (it is not
    // recorded, tuned or logged as "using Default"), so it comes back here each time.
    if (auto why = caller.invalid_reason()) {
      return RunStatus::failure(fmt::format("{}: {}", signature(caller), *why));
    }
    e = slow_path(p, h, stream);
  }
  return dispatch->run(*e, (f & kEnabled) == 0, ops, stream);
}

Lookup Context::Impl::lookup(const Problem& caller) {
  if ((flags.load(std::memory_order_relaxed) & kEnabled) == 0) {
    return {kDefaultSolutionName, Source::Disabled};
  }
  Problem scratch;
  const Problem& p = api::lookup_key(caller, scratch);
  api::Entry* e = tables.current()->find(p, api::fast_hash(p));
  if (e == nullptr || e->kind == api::EntryKind::Untuned) {
    return {kDefaultSolutionName, Source::Untuned};
  }
  const api::Resolved& r = dispatch->resolve(*e, false);
  return {r.name, r.fell_back ? Source::Fallback : Source::Tuned};
}

// ---- slow path ----------------------------------------------------------------------------

api::Entry* Context::Impl::slow_path(const Problem& p, std::uint64_t h, void* stream) {
  const unsigned f = flags.load();
  api::Entry* e = nullptr;
  {
    const api::ContextLock lock(writer);
    e = tables.ensure(p, h);
    if ((f & kEnabled) == 0 || e->kind == api::EntryKind::Result) return e;
    if ((f & kTuning) == 0 || e->tuning_attempted.load()) {
      maybe_record(*e, f);
      return e;
    }
    if (session.backend->capturing(stream)) {
      // Tuning allocates, synchronizes and times on the device, which would fail the caller's
      // capture: Default goes into the graph, and the first call outside a capture tunes.
      maybe_record(*e, f);
      if (!capture_tuning_warned.exchange(true) || verbose()) {
        log(
            fmt::format("{}: not tuned during a CUDA graph capture; Default runs in the graph, "
                        "and the first call outside a capture tunes it",
                        signature(p)));
      }
      return e;
    }
  }
  api::Entry* tuned = tune_once(p, h, /*retry_failed=*/false);
  return tuned != nullptr ? tuned : e;
}

api::Entry* Context::Impl::tune_once(const Problem& p, std::uint64_t h, bool retry_failed) {
  std::promise<api::Entry*> promise;
  std::shared_future<api::Entry*> in_flight;
  {
    const api::ContextLock lock(writer);
    // The caller looked before, under an earlier hold of the lock (or none); a tuning may have
    // finished since, published its entry and left `inflight`. Without this second look the
    // problem would be tuned, and its line appended, twice.
    if (api::Entry* e = tables.current()->find(p, h);
        e != nullptr &&
        (e->kind == api::EntryKind::Result || (!retry_failed && e->tuning_attempted.load()))) {
      return e;
    }
    const api::InFlightTunings::Turn turn = inflight.claim(p, promise);
    // This very thread tunes it and is back here from its log sink (a "tuning" message it
    // answered with gemm()): waiting would be for itself. That call runs Default.
    if (turn.kind == api::InFlightTunings::Turn::Reentered) return tables.ensure(p, h);
    in_flight = turn.result;
  }
  if (in_flight.valid()) return in_flight.get();  // another thread is tuning it: wait for it
  api::Entry* result = nullptr;
  try {
    result = tune_and_publish(p, h);
  } catch (const std::exception& ex) {
    log(fmt::format("tuning {} failed: {}", signature(p), ex.what()));
  } catch (...) {
    // Whatever a user's provider throws, the problem must leave `inflight`: its waiters and every
    // later call would otherwise meet a broken promise.
    log(fmt::format("tuning {} failed: {}", signature(p), kNotAStdException));
  }
  {
    const api::ContextLock lock(writer);
    inflight.finish(p);
    if (result == nullptr) result = tables.ensure(p, h);
  }
  promise.set_value(result);
  return result;
}

api::Entry* Context::Impl::tune_and_publish(const Problem& p, std::uint64_t h) {
  TuningReport report;
  std::string error;
  // Said before waiting for the tuning in progress, if any: said under the lock, it would wait
  // for this tuning's end (api/deferred_log.hpp).
  if (verbose()) log(fmt::format("tuning {}", signature(p)));
  {
    const api::ContextLock tuning(tuning_mutex);
    try {
      Tuner tuner(*session.backend, *session.registry, tuner_options());
      report = tuner.tune(p);
      if (!report.ok()) error = report.error.empty() ? "no winner" : report.error;
    } catch (const std::exception& ex) {
      error = ex.what();
    } catch (...) {
      error = std::string(kNotAStdException);
    }
  }
  // The file lock before the writer lock, the order write() takes them in: the winner is either in
  // the snapshot write() puts in place of the file, or appended after it is in place.
  std::optional<api::ContextLock<std::mutex>> file;
  if (error.empty()) file.emplace(file_mutex);
  const api::ContextLock lock(writer);
  if (error.empty()) {
    api::Entry* r =
        tables.add(p, h, api::EntryKind::Result, report.winner, report.winner_stats.median_ms);
    tuning_errors.erase(p);
    if (api::signature_expresses(p)) {
      const ResultEntry line{
          p.op_signature(), p.params_signature(), report.winner, report.winner_stats.median_ms, {}};
      results.add_tuned(line, report.candidates);
    } else {
      say_kept_in_memory(p);
    }
    if (verbose()) {
      log(fmt::format("tuned {}: {} ({} ms, {:.2f}x over Default)", signature(p), report.winner,
                      format_time_ms(report.winner_stats.median_ms),
                      report.speedup_over_default()));
    }
    return r;
  }
  log(fmt::format("tuning {} failed: {}; it runs Default", signature(p), error));
  tuning_errors[p] = error;
  api::Entry* e = tables.ensure(p, h);
  e->tuning_attempted.store(true);
  maybe_record(*e, flags.load());
  return e;
}

void Context::Impl::maybe_record(api::Entry& e, unsigned f) {
  if ((f & kRecord) == 0 || e.recorded.load()) return;
  // An untuned line (two fields) in the results file is a bad line there, and a file with bad
  // lines is one write_file refuses to replace: all later results would stay unwritten.
  if (same_file(recorder.path(), results.path())) {
    if (!record_warned) {
      log(
          fmt::format("record untuned: {} is also the results file; GEMMs are not recorded "
                      "into it (give the untuned file another name)",
                      recorder.path()));
    }
    record_warned = true;
    e.recorded.store(true);
    return;
  }
  if (!api::signature_expresses(e.problem)) {
    say_kept_in_memory(e.problem);
    e.recorded.store(true);  // nothing to record: the hot path need not come back
    return;
  }
  try {
    if (recorder.record(e.problem) && verbose()) {
      log(fmt::format("recorded {} in {}", signature(e.problem), recorder.path()));
    }
  } catch (const std::exception& ex) {
    // Said once; the problems met later are still recorded where the file takes them.
    if (!record_warned) {
      log(fmt::format("record untuned: {}; {} is not recorded (further failures are not said)",
                      ex.what(), signature(e.problem)));
    }
    record_warned = true;
  }
  e.recorded.store(true);
}

void Context::Impl::say_kept_in_memory(const Problem& p) {
  if (unexpressible_warned && !verbose()) return;
  unexpressible_warned = true;
  const auto stride = [](std::int64_t s) {
    return s == 0 ? std::string("dense") : fmt::format("{}", s);
  };
  log(fmt::format(
      "{} with batch strides a={} b={} c={}: TunableOp's signatures have no strides and cannot "
      "express these (a line for it would be read back as the dense problem and applied to it). "
      "Such problems are neither appended to the results file, nor written by write_file, nor "
      "recorded as untuned; a tuning's winner is used in memory only, until the Context goes "
      "(said once; verbose says it for each)",
      signature(p), stride(p.stride_a), stride(p.stride_b), stride(p.stride_c)));
}

TunerOptions Context::Impl::tuner_options() const {
  const api::ContextLock lock(settings_mutex);
  TunerOptions t;
  t.timing.max_tuning_duration_ms = options.max_tuning_duration_ms;
  t.timing.max_tuning_iterations = options.max_tuning_iterations;
  t.timing.max_warmup_duration_ms = options.max_warmup_duration_ms;
  t.timing.max_warmup_iterations = options.max_warmup_iterations;
  t.timing.rotating_buffer_mb = options.rotating_buffer_mb;
  t.check = check;
  t.search.max_workspace_bytes = options.workspace_mb << 20;
  return t;
}

LoadReport Context::Impl::load(const std::string& path) {
  api::LoadedResults loaded = api::load_results_file(path, environment);
  LoadReport& r = loaded.report;
  bool is_results_file = false;  // read under the lock: set_filename may change results.path()
  {
    const api::ContextLock lock(writer);
    is_results_file = path == results.path();
    if (r.found && r.accepted) {
      // Appends and writes go to results.path(), whose header they must equal: only that file's
      // validators replace this machine's. Another file's (read_file of a PyTorch file with
      // PT_VERSION alone) would make every later append to results.path() be refused.
      if (is_results_file && !loaded.table.environment.empty()) {
        results.set_environment(loaded.table.environment);
      }
      for (auto& line : loaded.table.entries) {
        results.add_loaded(line);
        Problem p;
        try {
          p = parse_problem(line.op_signature, line.params_signature);
        } catch (const std::exception&) {
          ++r.unparsed;
          continue;
        }
        const std::uint64_t h = api::fast_hash(p);
        // An unchanged line keeps its entry, and what that entry resolved: entries are never
        // freed while the Context lives, and a new one per line per reload grew an application
        // that re-reads its file by the whole file each time.
        const api::Entry* now = tables.current()->find(p, h);
        if (now == nullptr || now->kind != api::EntryKind::Result ||
            now->solution_name != line.solution || now->time_ms != line.time_ms) {
          tables.add(p, h, api::EntryKind::Result, line.solution, line.time_ms);
        }
        ++r.entries;
      }
    }
    load_report = r;
  }
  // Said once per load: a refused or partly bad file always, a good one when verbose.
  if (!r.accepted || r.bad_lines > 0) {
    log(r.message);
  } else if (is_results_file && r.entries > 0 && loaded.table.environment.empty()) {
    // Its entries are used, but a results file's validators come first: an append would have to
    // rewrite it, and is refused, so what is tuned here stays in memory. Said now, not at the
    // first refused append.
    log(fmt::format(
        "{} has no Validator lines: its {} results are used, but results tuned here cannot be "
        "appended to it; write_file() to another file keeps them",
        path, r.entries));
  } else if (verbose()) {
    log(r.found ? fmt::format("loaded {} results from {}", r.entries, path) : r.message);
  }
  return r;
}

void Context::Impl::write(const std::string& path) {
  // Held to the end: a winner appended between the snapshot and the rename would go into the file
  // the rename replaces (tune_and_publish takes this lock first too).
  const api::ContextLock file(file_mutex);
  api::refuse_to_replace_another_environment(path, environment);
  api::HeldResults::Snapshot held;
  {
    const api::ContextLock lock(writer);
    held = results.snapshot();
  }
  const std::size_t written = api::write_results_file(path, held.table, held.tuned_here);
  if (verbose()) log(fmt::format("wrote {} results to {}", written, path));
}

}  // namespace gemmtune
