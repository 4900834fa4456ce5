// Context::Impl: what a Context holds — options, the backend session, the entries and lookup
// tables, the results and untuned files — and the orchestration of its hot and slow paths: which
// part runs a call (api/dispatcher.hpp), tunes a problem once (api/in_flight_tunings.hpp), records
// it, or loads and writes results (api/held_results.hpp), under which of its locks.
// context_impl.cpp implements it; context.cpp forwards the public verbs to it.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/context_log.hpp"
#include "api/deferred_log.hpp"
#include "api/dispatcher.hpp"
#include "api/entry_tables.hpp"
#include "api/held_results.hpp"
#include "api/in_flight_tunings.hpp"
#include "api/lookup_table.hpp"
#include "api/results_file.hpp"
#include "api/untuned_recorder.hpp"
#include "db/untuned_file.hpp"
#include "drivers/backend_factory.hpp"
#include "tuner/error.hpp"
#include "tuner/tuner.hpp"
#include "validator/collect.hpp"

namespace gemmtune {

struct Context::Impl {
  explicit Impl(Options o);
  ~Impl();

  // ---- hot path ----
  // Both look the caller's problem up under its api::lookup_key; every Problem below is a key.
  RunStatus gemm(const Problem& caller, const Operands& ops, void* stream);
  Lookup lookup(const Problem& caller);

  // ---- slow path ----
  api::Entry* slow_path(const Problem& p, std::uint64_t h, void* stream);
  // Tunes `p` unless it has a result, or (unless retry_failed) its tuning failed before; a caller
  // that finds it being tuned waits for that tuning.
  api::Entry* tune_once(const Problem& p, std::uint64_t h, bool retry_failed);
  api::Entry* tune_and_publish(const Problem& p, std::uint64_t h);
  void maybe_record(api::Entry& e, unsigned f);  // writer held
  void say_kept_in_memory(const Problem& p);     // writer held
  TunerOptions tuner_options() const;
  // Registers an application's provider (null: std::invalid_argument). One named as one of
  // gemmtune's own providers of this backend replaces it, Default with it where that is the one
  // (tests count Default's runs so), which is logged: by mistake, it leaves every GEMM without
  // Default. One for another backend is logged as unused.
  void add_provider(std::shared_ptr<SolutionProvider> provider);
  LoadReport load(const std::string& path);
  void write(const std::string& path);
  bool verbose() const { return log.verbose(); }

  // Settings that are not on the hot path.
  mutable std::mutex settings_mutex;
  Options options;
  NumericalCheckOptions check;
  std::atomic<unsigned> flags{0};
  api::ContextLog log;
  std::atomic<bool> write_on_exit{false};

  BackendSession session;
  std::string backend_name;
  std::vector<std::string> own_providers;  // gemmtune's, of this backend
  Environment environment;                 // this machine's validators
  std::unique_ptr<api::Dispatcher> dispatch;

  // Guarded by `writer`: the tables and entries (readers use them without it), the results
  // the Context holds, file names, in-flight tunings, the recorder.
  std::mutex writer;
  api::EntryTables tables;
  api::HeldResults results{log};
  LoadReport load_report;
  api::UntunedRecorder recorder;
  api::InFlightTunings inflight;
  std::unordered_map<Problem, std::string, ProblemHash> tuning_errors;
  bool record_warned = false, unexpressible_warned = false;
  std::atomic<bool> capture_tuning_warned{false};

  // Held by write() from its snapshot to its rename, and by a tuning from before it takes
  // `writer` until its winner is appended: so no winner is appended to a file being replaced.
  // Taken before `writer`, never while holding it.
  std::mutex file_mutex;
  std::mutex tuning_mutex;  // one tuning at a time: two would disturb each other's timings
};

}  // namespace gemmtune
