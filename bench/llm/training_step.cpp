#include "bench/llm/training_step.hpp"

#include <algorithm>

namespace gemmtune::bench {

TrainingStep make_training_step(const std::vector<LlmShape>& step_shapes) {
  TrainingStep step;
  for (const LlmShape& s : step_shapes) {
    const auto same = [&](const LlmShape& d) {
      return d.label() == s.label() && d.problem.op_signature() == s.problem.op_signature() &&
             d.problem.params_signature() == s.problem.params_signature();
    };
    const auto found = std::find_if(step.distinct.begin(), step.distinct.end(), same);
    step.order.push_back(static_cast<std::size_t>(found - step.distinct.begin()));
    if (found == step.distinct.end()) step.distinct.push_back(s);
  }
  return step;
}

}  // namespace gemmtune::bench
