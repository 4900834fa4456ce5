// Context::Impl: the lookup table, the slow path of a first-seen problem (resolve, tune once,
// record once), and the results and untuned files. See include/gemmtune/context.hpp for the
// contract and api/lookup_table.hpp for the hot path.
#include "api/context_impl.hpp"

#include "api/call_checks.hpp"
#include "api/problem_key.hpp"
#include "tuner/unrunnable_solution.hpp"

namespace gemmtune {
using namespace context_flags;

namespace {

std::string signature(const Problem& p) {
  return fmt::format("{},{}", p.op_signature(), p.params_signature());
}

api::LogEmitter make_log_emitter(LogSink sink) {
  return [sink = std::move(sink)](std::string_view message) {
    try {
      if (sink) {
        sink(message);
      } else {
        std::fprintf(stderr, "gemmtune: %.*s\n", static_cast<int>(message.size()), message.data());
      }
    } catch (...) {
      // A throwing sink must not take a GEMM down with it (nor a ContextLock's destructor, which
      // sends what waited).
    }
  };
}

}  // namespace

Context::Impl::Impl(Options o) : options(std::move(o)), emit_log(make_log_emitter(options.log)) {
  for (const auto& w : options.warnings) log(w);
  try {
    check = parse_numerical_check(options.numerical_check);
  } catch (const std::exception& e) {
    log(fmt::format("numerical check '{}': {}; using on", options.numerical_check, e.what()));
  }
  flags.store((options.enabled ? kEnabled : 0) | (options.tuning ? kTuning : 0) |
              (options.record_untuned ? kRecord : 0) | (options.verbose ? kVerbose : 0));
  write_on_exit.store(options.write_file_on_exit);
  // The application's thread stays on its own device; what needs ours holds make_current().
  session =
      open_backend(parse_backend_kind(options.backend), options.device, CurrentDevice::Callers);
  for (const auto& provider : options.providers) session.registry->add(provider);
  backend_name = session.backend->properties().backend;
  environment = collect_environment(*session.backend);
  write_environment = environment;
  // The CPU backend runs a solution synchronously; every other backend orders work by stream.
  workspaces = std::make_unique<api::WorkspacePool>(*session.backend, backend_name != "cpu");
  tables.push_back(std::make_unique<api::LookupTable>(64));
  table.store(tables.back().get(), std::memory_order_release);
  const auto ordinal = [&](const std::string& name) {
    return options.insert_device_ordinal ? with_device_ordinal(name, options.device) : name;
  };
  results_path = ordinal(options.filename);
  recorder.set_path(ordinal(options.untuned_filename));
  if (verbose()) {
    log(
        fmt::format("{} device {} ({}); results {}, untuned {}; enabled={} tuning={} "
                    "record_untuned={}",
                    backend_name, options.device, session.backend->properties().name, results_path,
                    recorder.path(), options.enabled, options.tuning, options.record_untuned));
  }
  load(results_path);
}

Context::Impl::~Impl() {
  if (write_on_exit.load()) {
    try {
      std::string path;
      {
        const api::ContextLock lock(writer);
        path = results_path;
      }
      write(path);
    } catch (const std::exception& e) {
      log(fmt::format("write_file_on_exit: {}", e.what()));
    }
  }
}

void Context::Impl::log(std::string_view message) const {
  api::log_when_unlocked(emit_log, message);
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
  api::Entry* e = current()->find(p, h);
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
  const api::Resolved& r = resolve(*e, (f & kEnabled) == 0);
  try {
    RunStatus status = run_resolved(*e, r, ops, stream);
    if (status.refused && r.name != kDefaultSolutionName) {
      return run_default_after_refusal(*e, r, status, ops, stream);
    }
    return status;
  } catch (const std::exception& ex) {
    return RunStatus::failure(
        fmt::format("{} on {}: {}", r.solution->name(), signature(p), ex.what()));
  } catch (...) {
    return RunStatus::failure(
        fmt::format("{} on {}: {}", r.solution->name(), signature(p), kNotAStdException));
  }
}

RunStatus Context::Impl::run_resolved(api::Entry& e, const api::Resolved& r, const Operands& ops,
                                      void* stream) {
  if (r.workspace_bytes == 0 ||
      (ops.workspace != nullptr && ops.workspace_bytes >= r.workspace_bytes)) {
    return r.solution->run(e.problem, ops, stream);
  }
  const auto lease = workspaces->acquire(stream, r.workspace_bytes);
  if (lease.data() == nullptr) return run_without_workspace(e, r, ops, stream);
  Operands with_workspace = ops;
  with_workspace.workspace = lease.data();
  with_workspace.workspace_bytes = lease.bytes();
  return r.solution->run(e.problem, with_workspace, stream);
}

RunStatus Context::Impl::run_default_after_refusal(api::Entry& e, const api::Resolved& chosen,
                                                   const RunStatus& refusal, const Operands& ops,
                                                   void* stream) {
  // The tuned solution was measured on buffers aligned as an allocator returns them; an
  // application's operands may be views that are not (a PyTorch slice), and the call still has
  // to be computed. Said once per problem: it may happen on every call of that GEMM.
  if (!e.refusal_logged.exchange(true) || verbose()) {
    log(fmt::format("{}: {} turned down this call's operands ({}); Default runs such calls",
                    signature(e.problem), chosen.name, refusal.error));
  }
  const RunStatus status = run_resolved(e, resolve(e, true), ops, stream);
  if (status.ok) return status;
  return RunStatus::failure(
      fmt::format("{}: {} turned down this call's operands ({}), and so did "
                  "Default: {}",
                  signature(e.problem), chosen.name, refusal.error, status.error));
}

RunStatus Context::Impl::run_without_workspace(api::Entry& e, const api::Resolved& chosen,
                                               const Operands& ops, void* stream) {
  // The stream is being captured into a graph and has no workspace yet (none can be allocated
  // then): Default runs in the graph instead where it needs none, rather than failing the GEMM.
  const api::Resolved& d = resolve(e, true);
  const bool fits = d.workspace_bytes == 0 ||
                    (ops.workspace != nullptr && ops.workspace_bytes >= d.workspace_bytes);
  const std::string what = fmt::format(
      "{}: {} needs {} bytes of workspace, and this stream has none while it is captured into a "
      "CUDA graph (nothing can be allocated then); run a GEMM that needs it on this stream before "
      "the capture, or pass a workspace in Operands",
      signature(e.problem), chosen.name, chosen.workspace_bytes);
  if (!fits) return RunStatus::failure(what);
  if (!capture_workspace_warned.exchange(true) || verbose()) {
    log(what + "; Default runs in the graph instead");
  }
  return d.solution->run(e.problem, ops, stream);
}

Lookup Context::Impl::lookup(const Problem& caller) {
  if ((flags.load(std::memory_order_relaxed) & kEnabled) == 0) {
    return {kDefaultSolutionName, Source::Disabled};
  }
  Problem scratch;
  const Problem& p = api::lookup_key(caller, scratch);
  api::Entry* e = current()->find(p, api::fast_hash(p));
  if (e == nullptr || e->kind == api::EntryKind::Untuned) {
    return {kDefaultSolutionName, Source::Untuned};
  }
  const api::Resolved& r = resolve(*e, false);
  return {r.name, r.fell_back ? Source::Fallback : Source::Tuned};
}

const api::Resolved& Context::Impl::resolve(api::Entry& e, bool default_only) {
  std::atomic<const api::Resolved*>& slot = default_only ? e.fallback : e.chosen;
  if (const api::Resolved* r = slot.load(std::memory_order_acquire)) return *r;
  const api::ContextLock lock(resolve_mutex);
  if (const api::Resolved* r = slot.load(std::memory_order_relaxed)) return *r;
  const std::string_view name = default_only ? kDefaultSolutionName : e.solution_name;
  ResolvedSolution rs;
  try {
    const auto on_device = session.backend->make_current();  // rebuilding asks the device
    rs = resolve_solution(*session.registry, backend_name, e.problem, name);
  } catch (const std::exception& ex) {
    // A provider that throws while rebuilding the name is one more reason the name cannot run
    // here: Default runs, as for any other, unless it is Default that threw.
    rs = resolve_default_after_throw(e.problem, name, ex.what());
  } catch (...) {
    rs = resolve_default_after_throw(e.problem, name, kNotAStdException);
  }
  if (rs.fell_back && (e.kind == api::EntryKind::Result || rs.solution == nullptr)) {
    log(rs.warning);
  }
  if (rs.solution == nullptr) {
    // Not even Default can run the problem here: every run fails with the reason, so the hot path
    // never meets a null solution.
    rs.solution = std::make_unique<UnrunnableSolution>(
        std::string(name),
        rs.warning.empty() ? "no solution can run this problem here" : rs.warning);
  }
  api::Resolved& storage = default_only ? e.fallback_storage : e.chosen_storage;
  storage.solution = rs.solution.get();
  storage.name = rs.solution->name();
  try {
    storage.workspace_bytes = rs.solution->workspace_bytes(e.problem);
  } catch (...) {  // a user's solution may throw anything; its run will say what is wrong
    storage.workspace_bytes = 0;
  }
  storage.fell_back = rs.fell_back;
  (default_only ? e.fallback_owner : e.chosen_owner) = std::move(rs.solution);
  slot.store(&storage, std::memory_order_release);
  return storage;
}

ResolvedSolution Context::Impl::resolve_default_after_throw(const Problem& p, std::string_view name,
                                                            std::string_view why) {
  ResolvedSolution rs;
  rs.fell_back = true;
  rs.warning = fmt::format("{}: resolving '{}' failed: {}", signature(p), name, why);
  if (name == kDefaultSolutionName) return rs;
  try {
    const auto on_device = session.backend->make_current();
    ResolvedSolution d = resolve_solution(*session.registry, backend_name, p, kDefaultSolutionName);
    rs.solution = std::move(d.solution);
    if (rs.solution == nullptr) rs.warning += fmt::format("; and {}", d.warning);
  } catch (const std::exception& ex) {
    rs.warning += fmt::format("; and resolving {} failed too: {}", kDefaultSolutionName, ex.what());
  } catch (...) {
    rs.warning +=
        fmt::format("; and resolving {} failed too: {}", kDefaultSolutionName, kNotAStdException);
  }
  if (rs.solution != nullptr) rs.warning += fmt::format("; using {}", kDefaultSolutionName);
  return rs;
}

// ---- slow path ----------------------------------------------------------------------------

api::Entry* Context::Impl::add_entry(const Problem& p, std::uint64_t h, api::EntryKind kind,
                                     std::string name, double time_ms) {
  entries.push_back(std::make_unique<api::Entry>(p, h, kind, std::move(name), time_ms));
  return entries.back().get();
}

void Context::Impl::publish(api::Entry* e) {
  if (current()->put(e)) return;
  // Full: a table twice as large with every entry, published at once. The old one stays alive
  // for readers still probing it.
  auto bigger = std::make_unique<api::LookupTable>(current()->capacity() * 2);
  current()->for_each([&](api::Entry* x) { bigger->put(x); });
  bigger->put(e);
  tables.push_back(std::move(bigger));
  table.store(tables.back().get(), std::memory_order_release);
}

api::Entry* Context::Impl::ensure_entry(const Problem& p, std::uint64_t h) {
  if (api::Entry* e = current()->find(p, h)) return e;
  api::Entry* e = add_entry(p, h, api::EntryKind::Untuned, std::string(kDefaultSolutionName), 0);
  publish(e);
  return e;
}

void Context::Impl::rebuild_table() {
  // Fresh entries (nothing resolved yet) for every problem, in a new table.
  std::vector<api::Entry*> old;
  current()->for_each([&](api::Entry* e) { old.push_back(e); });
  auto fresh = std::make_unique<api::LookupTable>(current()->capacity());
  for (api::Entry* e : old) {
    api::Entry* n = add_entry(e->problem, e->hash, e->kind, e->solution_name, e->time_ms);
    n->recorded.store(e->recorded.load());
    n->tuning_attempted.store(e->tuning_attempted.load());
    fresh->put(n);
  }
  tables.push_back(std::move(fresh));
  table.store(tables.back().get(), std::memory_order_release);
}

api::Entry* Context::Impl::slow_path(const Problem& p, std::uint64_t h, void* stream) {
  const unsigned f = flags.load();
  api::Entry* e = nullptr;
  {
    const api::ContextLock lock(writer);
    e = ensure_entry(p, h);
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
    if (api::Entry* e = current()->find(p, h);
        e != nullptr &&
        (e->kind == api::EntryKind::Result || (!retry_failed && e->tuning_attempted.load()))) {
      return e;
    }
    if (auto it = inflight.find(p); it != inflight.end()) {
      // This very thread tunes it and is back here from its log sink (a "tuning" message it
      // answered with gemm()): waiting would be for itself. That call runs Default.
      if (it->second.tuner == std::this_thread::get_id()) return ensure_entry(p, h);
      in_flight = it->second.done;
    } else {
      inflight.emplace(p, InFlight{promise.get_future().share(), std::this_thread::get_id()});
    }
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
    inflight.erase(p);
    if (result == nullptr) result = ensure_entry(p, h);
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
        add_entry(p, h, api::EntryKind::Result, report.winner, report.winner_stats.median_ms);
    publish(r);
    tuning_errors.erase(p);
    if (api::signature_expresses(p)) {
      const ResultEntry line{
          p.op_signature(), p.params_signature(), report.winner, report.winner_stats.median_ms, {}};
      master.upsert(line);
      tuned_here.emplace(line.op_signature, line.params_signature);
      append_result(line, report.candidates);
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
  api::Entry* e = ensure_entry(p, h);
  e->tuning_attempted.store(true);
  maybe_record(*e, flags.load());
  return e;
}

void Context::Impl::maybe_record(api::Entry& e, unsigned f) {
  if ((f & kRecord) == 0 || e.recorded.load()) return;
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

void Context::Impl::append_result(const ResultEntry& line,
                                  const std::vector<CandidateReport>& candidates) {
  try {
    if (store == nullptr || store_path != results_path) {
      store.reset();
      store = open_results_store(results_path);
      store_path = results_path;
    }
    store->append(write_environment, line, candidates);
  } catch (const std::exception& ex) {
    store.reset();
    if (!append_warned) {
      log(
          fmt::format("cannot append to {} ({}); results tuned here are kept in memory "
                      "(write_file saves them elsewhere)",
                      results_path, ex.what()));
    }
    append_warned = true;
  }
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
  bool is_results_file = false;  // read under the lock: set_filename may change results_path
  {
    const api::ContextLock lock(writer);
    is_results_file = path == results_path;
    if (r.found && r.accepted) {
      // Appends and writes go to results_path, whose header they must equal: only that file's
      // validators replace this machine's. Another file's (read_file of a PyTorch file with
      // PT_VERSION alone) would make every later append to results_path be refused.
      if (is_results_file && !loaded.table.environment.empty()) {
        write_environment = loaded.table.environment;
      }
      for (auto& line : loaded.table.entries) {
        master.upsert(line);
        // Loaded over a result tuned here, it is a loaded one now: on write_file it gives way to
        // the file's, which may be newer.
        tuned_here.erase({line.op_signature, line.params_signature});
        Problem p;
        try {
          p = parse_problem(line.op_signature, line.params_signature);
        } catch (const std::exception&) {
          ++r.unparsed;
          continue;
        }
        publish(
            add_entry(p, api::fast_hash(p), api::EntryKind::Result, line.solution, line.time_ms));
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
  refuse_to_replace_another_environment(path);
  ResultsTable held;
  std::set<ResultKey> tuned;
  {
    const api::ContextLock lock(writer);
    held = master;
    held.environment = write_environment;
    tuned = tuned_here;
  }
  // Read and replaced under the file's append lock (a database: in one transaction), so that what
  // another process appended since this Context read the file, or what a file it never loaded
  // holds, is kept rather than replaced away. Where both hold a problem, this Context's result is
  // written if it tuned the problem; one it only loaded gives way to the file's, which may be
  // newer (a `db merge` into the file meanwhile).
  const bool one_environment = results_store_kind(path) == "csv";
  std::size_t written = 0;
  Diagnostics read;  // bad lines are the readers' to report; they are not kept, as before
  open_results_store(path)->update(
      read, [&](std::vector<ResultsTable> current, const Diagnostics&) {
        ResultsTable out;
        out.environment = held.environment;
        for (const ResultsTable& stored : current) {
          // A CSV file is one environment, which refuse_to_replace_another_environment accepted;
          // a database's other environments are not this write's to touch.
          if (!one_environment && !(stored.environment == held.environment)) continue;
          for (const ResultEntry& e : stored.entries) out.upsert(e, stored.time_text_of(e));
        }
        for (const ResultEntry& e : held.entries) {
          const bool ours = tuned.count({e.op_signature, e.params_signature}) > 0;
          if (ours || out.find(e.op_signature, e.params_signature) == nullptr) {
            out.upsert(e, held.time_text_of(e));
          }
        }
        written = out.entries.size();
        return std::optional<ResultsTable>(std::move(out));
      });
  if (verbose()) log(fmt::format("wrote {} results to {}", written, path));
}

void Context::Impl::refuse_to_replace_another_environment(const std::string& path) const {
  // A database keeps one table per environment and write() replaces only ours; a CSV file is
  // one environment, replaced whole.
  if (results_store_kind(path) != "csv") return;
  const api::LoadedResults existing = api::load_results_file(path, environment);
  if (!existing.report.found || existing.report.accepted) return;
  throw InputError(fmt::format(
      "{} is not replaced: {}, and replacing it would lose what it holds. The results this "
      "Context holds are not written there: write them to another file, or to a .db, which keeps "
      "one table per environment",
      path, existing.refusal));
}

}  // namespace gemmtune
