// Context::Impl: what a Context holds — options, the backend session, the lock-free lookup
// table (api/lookup_table.hpp), the results and untuned files — and its hot and slow paths.
// context_impl.cpp implements it; context.cpp forwards the public verbs to it.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include "api/deferred_log.hpp"
#include "api/lookup_table.hpp"
#include "api/results_file.hpp"
#include "api/untuned_recorder.hpp"
#include "api/workspace_pool.hpp"
#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/solution_resolver.hpp"
#include "tuner/error.hpp"
#include "tuner/tuner.hpp"
#include "validator/collect.hpp"

namespace gemmtune {

// Mode bits of Context::Impl::flags, read with one atomic load on the hot path.
namespace context_flags {
inline constexpr unsigned kEnabled = 1, kTuning = 2, kRecord = 4, kVerbose = 8;
}  // namespace context_flags

struct Context::Impl {
  explicit Impl(Options o);
  ~Impl();

  // ---- hot path ----
  // Both look the caller's problem up under its api::lookup_key; every Problem below is a key.
  RunStatus gemm(const Problem& caller, const Operands& ops, void* stream);
  Lookup lookup(const Problem& caller);

  // ---- slow path ----
  api::LookupTable* current() const { return table.load(std::memory_order_acquire); }
  api::Entry* ensure_entry(const Problem& p, std::uint64_t h);  // writer held
  api::Entry* add_entry(const Problem& p, std::uint64_t h, api::EntryKind kind, std::string name,
                        double time_ms);  // writer held
  void publish(api::Entry* e);            // writer held
  const api::Resolved& resolve(api::Entry& e, bool default_only);
  ResolvedSolution resolve_default_after_throw(const Problem& p, std::string_view name,
                                               std::string_view why);
  api::Entry* slow_path(const Problem& p, std::uint64_t h, void* stream);
  // Runs `r` with the workspace it needs: the caller's, the stream's from the pool, or (during
  // a graph capture, when none can be had) Default instead.
  RunStatus run_resolved(api::Entry& e, const api::Resolved& r, const Operands& ops, void* stream);
  RunStatus run_without_workspace(api::Entry& e, const api::Resolved& chosen, const Operands& ops,
                                  void* stream);
  // `chosen` refused this call's operands (RunStatus::refused): Default runs the call instead.
  RunStatus run_default_after_refusal(api::Entry& e, const api::Resolved& chosen,
                                      const RunStatus& refusal, const Operands& ops, void* stream);
  // Tunes `p` unless it has a result, or (unless retry_failed) its tuning failed before; a caller
  // that finds it being tuned waits for that tuning.
  api::Entry* tune_once(const Problem& p, std::uint64_t h, bool retry_failed);
  api::Entry* tune_and_publish(const Problem& p, std::uint64_t h);
  void maybe_record(api::Entry& e, unsigned f);  // writer held
  void say_kept_in_memory(const Problem& p);     // writer held
  void append_result(const ResultEntry& line, const std::vector<CandidateReport>& candidates);
  TunerOptions tuner_options() const;
  LoadReport load(const std::string& path);
  void rebuild_table();  // writer held
  void write(const std::string& path);
  void refuse_to_replace_another_environment(const std::string& path) const;  // file_mutex held
  // Through Options::log; held back while this thread holds a ContextLock (api/deferred_log.hpp).
  void log(std::string_view message) const;
  bool verbose() const {
    return (flags.load(std::memory_order_relaxed) & context_flags::kVerbose) != 0;
  }

  // Settings that are not on the hot path.
  mutable std::mutex settings_mutex;
  Options options;
  api::LogEmitter emit_log;  // options.log, or stderr; never throws
  NumericalCheckOptions check;
  std::atomic<unsigned> flags{0};
  std::atomic<bool> write_on_exit{false};

  BackendSession session;
  std::string backend_name;
  Environment environment;  // this machine's validators
  std::unique_ptr<api::WorkspacePool> workspaces;

  // Guarded by `writer`: the tables and entries (readers use them without it), the results
  // the Context holds, file names, in-flight tunings, the recorder.
  std::mutex writer;
  std::vector<std::unique_ptr<api::Entry>> entries;
  std::vector<std::unique_ptr<api::LookupTable>> tables;
  std::atomic<api::LookupTable*> table{nullptr};
  ResultsTable master;
  // The problems of `master` this Context tuned (the others it loaded): on write_file, its own
  // results replace the file's, while a loaded one gives way to what the file holds now.
  std::set<ResultKey> tuned_here;
  // What appends and writes label results with: the validators of the file at results_path when
  // it was loaded and accepted (they match this machine's, and may add PyTorch's), else this
  // machine's. Never another file's (read_file merges results, not validators).
  Environment write_environment;
  LoadReport load_report;
  std::string results_path;
  std::unique_ptr<ResultsStore> store;
  std::string store_path;
  api::UntunedRecorder recorder;
  // A tuning in progress: its result to come, and the thread that tunes it.
  struct InFlight {
    std::shared_future<api::Entry*> done;
    std::thread::id tuner;
  };
  std::unordered_map<Problem, InFlight, ProblemHash> inflight;
  std::unordered_map<Problem, std::string, ProblemHash> tuning_errors;
  bool append_warned = false, record_warned = false, unexpressible_warned = false;
  std::atomic<bool> capture_tuning_warned{false}, capture_workspace_warned{false};

  // Held by write() from its snapshot to its rename, and by a tuning from before it takes
  // `writer` until its winner is appended: so no winner is appended to a file being replaced.
  // Taken before `writer`, never while holding it.
  std::mutex file_mutex;
  std::mutex resolve_mutex;  // resolution of one entry at a time (rare: once per entry)
  std::mutex tuning_mutex;   // one tuning at a time: two would disturb each other's timings
};

}  // namespace gemmtune
