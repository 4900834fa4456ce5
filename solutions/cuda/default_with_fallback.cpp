#include "solutions/cuda/default_with_fallback.hpp"

#include <fmt/format.h>

#include <string>

namespace gemmtune::cuda {
namespace {

class DefaultWithFallback final : public Solution {
 public:
  DefaultWithFallback(const Problem& problem, std::unique_ptr<Solution> lt,
                      std::unique_ptr<Solution> fallback, FallbackFor use)
      : problem_(problem),
        lt_(std::move(lt)),
        fallback_(std::move(fallback)),
        lt_runs_(lt_->supports(problem_)),
        fallback_runs_((lt_runs_ || use == FallbackFor::RefusedCallsAndNoAlgorithm) &&
                       fallback_->supports(problem_)) {}

  const std::string& name() const override { return lt_->name(); }

  Support supports(const Problem& problem) const override {
    Support lt = lt_->supports(problem);
    if (lt || !(problem == problem_) || !fallback_runs_) return lt;
    return Support::yes();
  }

  std::size_t workspace_bytes(const Problem& problem) const override {
    return lt_->workspace_bytes(problem);
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream) override {
    std::string refusal;
    if (lt_runs_) {  // the LtSolution turns another problem down itself
      RunStatus status = lt_->run(problem, ops, stream);
      if (!status.refused || !fallback_runs_) return status;
      refusal = std::move(status.error);
    } else if (const Support s = supports(problem); !s) {
      return RunStatus::failure(s.reason);
    }
    RunStatus status = fallback_->run(problem_, ops, stream);
    if (!status && !refusal.empty()) {
      status.error =
          fmt::format("cuBLASLt's algorithm refused ({}); then {}", refusal, status.error);
    }
    return status;
  }

 private:
  Problem problem_;
  std::unique_ptr<Solution> lt_;
  std::unique_ptr<Solution> fallback_;
  bool lt_runs_;        // cuBLASLt's heuristic #0 exists for the problem
  bool fallback_runs_;  // the fallback can run it, and is to
};

}  // namespace

std::unique_ptr<Solution> make_default_with_fallback(const Problem& problem,
                                                     std::unique_ptr<Solution> lt,
                                                     std::unique_ptr<Solution> fallback,
                                                     FallbackFor use) {
  return std::make_unique<DefaultWithFallback>(problem, std::move(lt), std::move(fallback), use);
}

}  // namespace gemmtune::cuda
