// What tuning produces: a winner per problem (ResultEntry, one line of a results file) and the
// disposition and statistics of every candidate that was considered (CandidateReport).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/statistics.hpp"

namespace gemmtune {

// One results-file line: op_sig,params_sig,solution,time_ms[,extra...]. Signatures are kept as
// text so that lines of kinds this version cannot parse still survive every round trip.
struct ResultEntry {
  std::string op_signature;
  std::string params_signature;
  std::string solution;
  double time_ms = 0;
  std::vector<std::string> extra;

  friend bool operator==(const ResultEntry&, const ResultEntry&) = default;
};

enum class Disposition { Winner, Slower, Unsupported, Failed, Incorrect, ScreenedOut };

std::string_view to_string(Disposition d);
std::optional<Disposition> disposition_from_string(std::string_view name);
inline std::string_view format_as(Disposition d) {
  return to_string(d);
}

struct CandidateReport {
  std::string solution;
  Disposition disposition = Disposition::Slower;
  std::string reason;  // why unsupported / failed / incorrect / screened out; empty otherwise
  Statistics stats;    // zero iterations where it never ran
  double tflops = 0;   // at the median time
};

// One line for `tune -v`: "    slower         0.01234 ms  Cpu_Blocked_...  (reason)" (no newline).
std::string format_candidate_line(const CandidateReport& c);

}  // namespace gemmtune
