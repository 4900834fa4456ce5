#include "drivers/solution_resolver.hpp"

#include <fmt/format.h>

namespace gemmtune {

ResolvedSolution resolve_solution(const Registry& registry, std::string_view backend,
                                  const Problem& problem, std::string_view name,
                                  const SearchOptions& limits) {
  ResolvedSolution out;
  std::string why;
  if (auto s = name == kDefaultSolutionName ? registry.reference(backend, problem, limits)
                                            : registry.from_name(backend, problem, name)) {
    const Support support = s->supports(problem);
    if (support) {
      out.solution = std::move(s);
      return out;
    }
    why = support.reason;
  } else if (name == kDefaultSolutionName) {
    why = fmt::format(
        "no {} provider gives it: was the one that did replaced by another of its "
        "name?",
        backend);
  } else {
    why = fmt::format("no {} provider knows this solution name", backend);
  }
  out.fell_back = true;
  if (name == kDefaultSolutionName) {  // Default itself cannot run it: nothing can
    out.warning = fmt::format("{},{}: Default cannot run here ({}), and nothing else is tried",
                              problem.op_signature(), problem.params_signature(), why);
    return out;
  }
  out.warning =
      fmt::format("{},{}: solution '{}' cannot run here ({}); using {}", problem.op_signature(),
                  problem.params_signature(), name, why, kDefaultSolutionName);
  if (auto d = registry.reference(backend, problem, limits); d && d->supports(problem)) {
    out.solution = std::move(d);
  }
  return out;
}

}  // namespace gemmtune
