// Dispatcher: runs a call with the solution its entry names. An entry's solution is resolved once,
// on its first call or lookup, and read without locks afterwards. A name that cannot run here (a
// file measured elsewhere, a provider gone or throwing) resolves to Default with a warning; a
// problem not even Default can run resolves to a solution whose every run fails with the reason,
// so the hot path never meets a null solution. A call gets the workspace its solution needs from
// the caller or from the stream's in the pool; where the chosen solution cannot run this call
// (operands it turns down, no workspace during a graph capture) Default runs it instead.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

#include "api/context_log.hpp"
#include "api/lookup_table.hpp"
#include "api/workspace_pool.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/solution_resolver.hpp"

namespace gemmtune::api {

class Dispatcher {
 public:
  // `session` (opened) and `log` outlive the dispatcher. `limits`: those of the Context's tunings,
  // under which Default is rebuilt (resolve_solution).
  Dispatcher(const BackendSession& session, std::string backend_name, SearchOptions limits,
             const ContextLog& log);
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // The solution that runs `entry`'s calls: the one it names, or Default where `default_only`.
  const Resolved& resolve(Entry& entry, bool default_only);
  // One call of `entry`'s problem. What a solution throws is this call's failure.
  RunStatus run(Entry& entry, bool default_only, const Operands& ops, void* stream);

 private:
  ResolvedSolution resolve_default_after_throw(const Problem& p, std::string_view name,
                                               std::string_view why);
  // Runs `r` with the workspace it needs: the caller's, the stream's from the pool, or (during
  // a graph capture, when none can be had) Default instead.
  RunStatus run_resolved(Entry& e, const Resolved& r, const Operands& ops, void* stream);
  RunStatus run_without_workspace(Entry& e, const Resolved& chosen, const Operands& ops,
                                  void* stream);
  // `chosen` refused this call's operands (RunStatus::refused): Default runs the call instead.
  RunStatus run_default_after_refusal(Entry& e, const Resolved& chosen, const RunStatus& refusal,
                                      const Operands& ops, void* stream);

  const BackendSession& session_;
  const std::string backend_name_;
  const SearchOptions limits_;
  const ContextLog& log_;
  WorkspacePool workspaces_;
  std::mutex resolve_mutex_;  // resolution of one entry at a time (rare: once per entry)
  std::atomic<bool> capture_workspace_warned_{false};
};

}  // namespace gemmtune::api
