// Per-problem details behind the report's table, for finding out why a target is missed: what
// the tuner did with its candidates (how many of each disposition, an estimate of where its
// device time went) and, for each of the heuristic's ranks, its re-measured time next to what the
// tuner decided about the same configuration.
#pragma once

#include <string>
#include <vector>

#include "bench/llm/report.hpp"

namespace gemmtune::bench {

std::string render_details(const std::vector<BenchRow>& rows);

}  // namespace gemmtune::bench
