#include "api/dispatcher.hpp"

#include <fmt/format.h>

#include "tuner/error.hpp"
#include "tuner/unrunnable_solution.hpp"

namespace gemmtune::api {

// The CPU backend runs a solution synchronously; every other backend orders work by stream.
Dispatcher::Dispatcher(const BackendSession& session, std::string backend_name,
                       SearchOptions limits, const ContextLog& log)
    : session_(session),
      backend_name_(std::move(backend_name)),
      limits_(std::move(limits)),
      log_(log),
      workspaces_(*session.backend, backend_name_ != "cpu") {}

RunStatus Dispatcher::run(Entry& e, bool default_only, const Operands& ops, void* stream) {
  const Resolved& r = resolve(e, default_only);
  try {
    RunStatus status = run_resolved(e, r, ops, stream);
    if (status.refused && r.name != kDefaultSolutionName) {
      return run_default_after_refusal(e, r, status, ops, stream);
    }
    return status;
  } catch (const std::exception& ex) {
    return RunStatus::failure(
        fmt::format("{} on {}: {}", r.solution->name(), signature(e.problem), ex.what()));
  } catch (...) {
    return RunStatus::failure(
        fmt::format("{} on {}: {}", r.solution->name(), signature(e.problem), kNotAStdException));
  }
}

RunStatus Dispatcher::run_resolved(Entry& e, const Resolved& r, const Operands& ops, void* stream) {
  if (r.workspace_bytes == 0 ||
      (ops.workspace != nullptr && ops.workspace_bytes >= r.workspace_bytes)) {
    return r.solution->run(e.problem, ops, stream);
  }
  const auto lease = workspaces_.acquire(stream, r.workspace_bytes);
  if (lease.data() == nullptr) return run_without_workspace(e, r, ops, stream);
  Operands with_workspace = ops;
  with_workspace.workspace = lease.data();
  with_workspace.workspace_bytes = lease.bytes();
  return r.solution->run(e.problem, with_workspace, stream);
}

RunStatus Dispatcher::run_default_after_refusal(Entry& e, const Resolved& chosen,
                                                const RunStatus& refusal, const Operands& ops,
                                                void* stream) {
  // The tuned solution was measured on buffers aligned as an allocator returns them; an
  // application's operands may be views that are not (a PyTorch slice), and the call still has
  // to be computed. Said once per problem: it may happen on every call of that GEMM.
  if (!e.refusal_logged.exchange(true) || log_.verbose()) {
    log_(fmt::format("{}: {} turned down this call's operands ({}); Default runs such calls",
                     signature(e.problem), chosen.name, refusal.error));
  }
  const RunStatus status = run_resolved(e, resolve(e, true), ops, stream);
  if (status.ok) return status;
  return RunStatus::failure(
      fmt::format("{}: {} turned down this call's operands ({}), and so did "
                  "Default: {}",
                  signature(e.problem), chosen.name, refusal.error, status.error));
}

RunStatus Dispatcher::run_without_workspace(Entry& e, const Resolved& chosen, const Operands& ops,
                                            void* stream) {
  // The stream is being captured into a graph and has no workspace yet (none can be allocated
  // then): Default runs in the graph instead where it needs none, rather than failing the GEMM.
  const Resolved& d = resolve(e, true);
  const bool fits = d.workspace_bytes == 0 ||
                    (ops.workspace != nullptr && ops.workspace_bytes >= d.workspace_bytes);
  const std::string what = fmt::format(
      "{}: {} needs {} bytes of workspace, and this stream has none while it is captured into a "
      "CUDA graph (nothing can be allocated then); run a GEMM that needs it on this stream before "
      "the capture, or pass a workspace in Operands",
      signature(e.problem), chosen.name, chosen.workspace_bytes);
  if (!fits) return RunStatus::failure(what);
  if (!capture_workspace_warned_.exchange(true) || log_.verbose()) {
    log_(what + "; Default runs in the graph instead");
  }
  return d.solution->run(e.problem, ops, stream);
}

const Resolved& Dispatcher::resolve(Entry& e, bool default_only) {
  std::atomic<const Resolved*>& slot = default_only ? e.fallback : e.chosen;
  if (const Resolved* r = slot.load(std::memory_order_acquire)) return *r;
  const ContextLock lock(resolve_mutex_);
  if (const Resolved* r = slot.load(std::memory_order_relaxed)) return *r;
  const std::string_view name = default_only ? kDefaultSolutionName : e.solution_name;
  ResolvedSolution rs;
  try {
    const auto on_device = session_.backend->make_current();  // rebuilding asks the device
    rs = resolve_solution(*session_.registry, backend_name_, e.problem, name, limits_);
  } catch (const std::exception& ex) {
    // A provider that throws while rebuilding the name is one more reason the name cannot run
    // here: Default runs, as for any other, unless it is Default that threw.
    rs = resolve_default_after_throw(e.problem, name, ex.what());
  } catch (...) {
    rs = resolve_default_after_throw(e.problem, name, kNotAStdException);
  }
  if (rs.fell_back && (e.kind == EntryKind::Result || rs.solution == nullptr)) {
    log_(rs.warning);
  }
  if (rs.solution == nullptr) {
    // Not even Default can run the problem here: every run fails with the reason, so the hot path
    // never meets a null solution.
    rs.solution = std::make_unique<UnrunnableSolution>(
        std::string(name),
        rs.warning.empty() ? "no solution can run this problem here" : rs.warning);
  }
  Resolved& storage = default_only ? e.fallback_storage : e.chosen_storage;
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

ResolvedSolution Dispatcher::resolve_default_after_throw(const Problem& p, std::string_view name,
                                                         std::string_view why) {
  ResolvedSolution rs;
  rs.fell_back = true;
  rs.warning = fmt::format("{}: resolving '{}' failed: {}", signature(p), name, why);
  if (name == kDefaultSolutionName) return rs;
  try {
    const auto on_device = session_.backend->make_current();
    ResolvedSolution d =
        resolve_solution(*session_.registry, backend_name_, p, kDefaultSolutionName, limits_);
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

}  // namespace gemmtune::api
