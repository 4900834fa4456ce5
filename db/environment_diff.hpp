// EnvironmentDifference: how two sets of validators differ, key by key.
//
// db/ needs this to refuse mixing environments (appending to a results file measured elsewhere,
// merging tables from different machines) and to say why. validator/ owns the policy of which
// differences matter for loading; this is only the plain, order-independent comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/environment.hpp"

namespace gemmtune {

struct EnvironmentDifference {
  std::string key;
  std::optional<std::string> expected;  // absent when `expected` lacks the key
  std::optional<std::string> actual;    // absent when `actual` lacks the key
};

// Differences in the order of `expected`'s keys, then the keys only `actual` has.
std::vector<EnvironmentDifference> environment_differences(const Environment& expected,
                                                           const Environment& actual);

// "PT_VERSION: expected '2.11.0', actual '2.12.0'; CUBLASLT_VERSION: expected lacks it,
// actual '130100'", with the given names for the two sides.
std::string describe_differences(const std::vector<EnvironmentDifference>& differences,
                                 std::string_view expected_name = "expected",
                                 std::string_view actual_name = "actual");

// "PT_VERSION=2.11.0, GEMMTUNE_VERSION=0.1.0" (or "no validators").
std::string describe_environment(const Environment& environment);

}  // namespace gemmtune
