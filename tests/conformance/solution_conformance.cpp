// The BackendConformance tests of a backend's solutions: Default (the numerical reference) for
// every claimed dtype, the providers' names, and a whole tuning run on the backend. The Backend's
// own contract is tested in backend_conformance.cpp.
#include <fmt/format.h>

#include <set>

#include "backend_conformance.hpp"
#include "conformance_support.hpp"
#include "db/csv_results.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/tuner.hpp"
#include "validator/collect.hpp"

namespace gemmtune::conformance {

// --- Default and the providers (solution.hpp, registry.hpp) -----------------------------------

TEST_P(BackendConformance, DefaultSupportsEveryClaimedType) {
  const std::string& name = backend().properties().backend;
  for (DType d : dtypes()) {
    for (const GemmCase& gemm : gemm_cases(d)) {
      SCOPED_TRACE(gemm.describe());
      const auto solution = registry().from_name(name, gemm.problem, kDefaultSolutionName);
      ASSERT_NE(solution, nullptr) << "no provider rebuilds 'Default'";
      EXPECT_EQ(solution->name(), kDefaultSolutionName);
      const Support s = solution->supports(gemm.problem);
      if (gemm.required) {
        EXPECT_TRUE(s) << s.reason;
      } else if (!s) {
        EXPECT_FALSE(s.reason.empty()) << "an unsupported problem needs a reason";
      }
    }
  }
}

TEST_P(BackendConformance, DefaultComputesEveryClaimedType) {
  const std::string& name = backend().properties().backend;
  int checked = 0;
  std::uint64_t seed = 100;
  for (DType d : dtypes()) {
    for (const GemmCase& gemm : gemm_cases(d)) {
      SCOPED_TRACE(gemm.describe());
      const Problem& p = gemm.problem;
      const auto solution = registry().from_name(name, p, kDefaultSolutionName);
      if (!solution || !solution->supports(p)) continue;  // DefaultSupportsEveryClaimedType
      DeviceGemm ops(backend(), gemm, solution->workspace_bytes(p), ++seed);
      const RunStatus status = solution->run(p, ops.operands(), backend().stream());
      ASSERT_TRUE(status) << status.error;
      const std::vector<double> c = ops.read_c();
      // The tuner's own check, against a double-precision reference of the same inputs.
      const Tolerance tolerance = tolerance_for(p, NumericalCheckOptions{}, ops.expected());
      const CheckResult r = compare_outputs(p, ops.expected(), c, tolerance);
      EXPECT_TRUE(r.passed) << r.describe(p.m * p.n * p.batch * parts_of(p.c_type));
      EXPECT_EQ(ops.written_outside(c), "") << "C's padding and gaps are not the GEMM's";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST_P(BackendConformance, SolutionNamesAreUniqueStableAndRebuildable) {
  const std::string& backend_name = backend().properties().backend;
  const Environment env = collect_environment(backend());
  for (DType d : dtypes()) {
    for (const GemmCase& gemm : gemm_cases(d)) {
      SCOPED_TRACE(gemm.describe());
      const Problem& p = gemm.problem;
      const auto solutions = registry().enumerate(backend_name, p, SearchOptions{});
      std::multiset<std::string> names;
      for (const auto& s : solutions) names.insert(s->name());
      EXPECT_EQ(names.count(std::string(kDefaultSolutionName)), 1u);

      std::set<std::string> seen;
      for (const auto& s : solutions) {
        const std::string& name = s->name();
        ASSERT_FALSE(name.empty());
        EXPECT_TRUE(seen.insert(name).second) << "two solutions named " << name;
        EXPECT_FALSE(breaks_a_csv_field(name) || has_surrounding_space(name)) << "'" << name << "'";
        // What a results file stores must rebuild the same solution.
        const auto rebuilt = registry().from_name(backend_name, p, name);
        ASSERT_NE(rebuilt, nullptr) << "from_name does not know " << name;
        EXPECT_EQ(rebuilt->name(), name);
        EXPECT_EQ(static_cast<bool>(rebuilt->supports(p)), static_cast<bool>(s->supports(p)))
            << name;
        Diagnostics diagnostics;
        const ResultEntry entry{p.op_signature(), p.params_signature(), name, 0.0123, {}};
        const ResultsTable table =
            parse_results_csv(format_validator_lines(env) + format_result_line(entry, "0.0123"),
                              "names", diagnostics);
        EXPECT_TRUE(diagnostics.empty()) << diagnostics.format_all();
        ASSERT_EQ(table.entries.size(), 1u);
        EXPECT_EQ(table.entries.front().solution, name);
      }

      // Stable: the same problem enumerates the same names again.
      std::multiset<std::string> again;
      for (const auto& s : registry().enumerate(backend_name, p, SearchOptions{})) {
        again.insert(s->name());
      }
      EXPECT_EQ(again, names);
      EXPECT_EQ(registry().from_name(backend_name, p, "Conformance_no_such_solution"), nullptr);
    }
  }
}

// --- The engine on the backend (tuner.hpp) ---------------------------------------------------

TEST_P(BackendConformance, TunerTunesEveryClaimedType) {
  TunerOptions options;
  options.timing.max_tuning_duration_ms = 2;
  options.timing.max_tuning_iterations = 3;
  options.timing.screening_iterations = 0;  // no screening: every candidate is checked
  options.timing.rotating_buffer_mb = 1.0;  // several operand sets, rotated
  Tuner tuner(backend(), registry(), options);
  const std::string& name = backend().properties().backend;
  for (DType d : dtypes()) {
    const Problem p = tuning_problem(d);
    SCOPED_TRACE(p.op_signature() + "," + p.params_signature());
    const TuningReport report = tuner.tune(p);
    ASSERT_TRUE(report.ok()) << report.error;
    EXPECT_FALSE(report.fatal);
    EXPECT_NE(registry().from_name(name, p, report.winner), nullptr) << report.winner;
    std::size_t unsupported = 0;
    for (const CandidateReport& c : report.candidates) {
      unsupported += c.disposition == Disposition::Unsupported;
    }
    fmt::print("{},{}: {} candidates ({} unsupported), winner {}\n", p.op_signature(),
               p.params_signature(), report.candidates.size(), unsupported, report.winner);
    for (const CandidateReport& c : report.candidates) {
      if (c.solution == kDefaultSolutionName) {
        EXPECT_TRUE(c.disposition == Disposition::Winner || c.disposition == Disposition::Slower)
            << to_string(c.disposition) << ": " << c.reason;
      }
      // A registered solution that fails or computes wrong numbers is a bug of the backend.
      EXPECT_NE(c.disposition, Disposition::Failed) << c.solution << ": " << c.reason;
      EXPECT_NE(c.disposition, Disposition::Incorrect) << c.solution << ": " << c.reason;
    }
  }
}

}  // namespace gemmtune::conformance
