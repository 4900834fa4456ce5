// Context::Impl: what a Context holds — options, the backend session, the lock-free lookup
// table (api/lookup_table.hpp), the results and untuned files — and its hot and slow paths.
// context_impl.cpp implements it; context.cpp forwards the public verbs to it.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <mutex>
#include <unordered_map>

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
  RunStatus gemm(const Problem& p, const Operands& ops, void* stream);
  Lookup lookup(const Problem& p);

  // ---- slow path ----
  api::LookupTable* current() const { return table.load(std::memory_order_acquire); }
  api::Entry* ensure_entry(const Problem& p, std::uint64_t h);           // writer held
  api::Entry* add_entry(const Problem& p, std::uint64_t h, api::EntryKind kind,
                        std::string name, double time_ms);               // writer held
  void publish(api::Entry* e);                                           // writer held
  const api::Resolved& resolve(api::Entry& e, bool default_only);
  api::Entry* slow_path(const Problem& p, std::uint64_t h, void* stream);
  RunStatus run_without_workspace(api::Entry& e, const api::Resolved& chosen, const Operands& ops,
                                  void* stream);
  api::Entry* tune_once(const Problem& p, std::uint64_t h);
  api::Entry* tune_and_publish(const Problem& p, std::uint64_t h);
  void maybe_record(api::Entry& e, unsigned f);                          // writer held
  void append_result(const ResultEntry& line, const std::vector<CandidateReport>& candidates);
  TunerOptions tuner_options() const;
  LoadReport load(const std::string& path);
  void rebuild_table();                                                  // writer held
  void write(const std::string& path);
  void log(std::string_view message) const;
  bool verbose() const { return (flags.load(std::memory_order_relaxed) & context_flags::kVerbose) != 0; }

  // Settings that are not on the hot path.
  mutable std::mutex settings_mutex;
  Options options;
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
  Environment write_environment;  // the loaded file's validators, or this machine's
  LoadReport load_report;
  std::string results_path;
  std::unique_ptr<ResultsStore> store;
  std::string store_path;
  api::UntunedRecorder recorder;
  std::unordered_map<Problem, std::shared_future<api::Entry*>, ProblemHash> inflight;
  std::unordered_map<Problem, std::string, ProblemHash> tuning_errors;
  bool append_warned = false, record_warned = false;
  std::atomic<bool> capture_tuning_warned{false}, capture_workspace_warned{false};

  std::mutex resolve_mutex;  // resolution of one entry at a time (rare: once per entry)
  std::mutex tuning_mutex;   // one tuning at a time: two would disturb each other's timings
};

}  // namespace gemmtune
