// Diagnostics: formatting, counting, and strict mode throwing on the first error only.
#include "db/diagnostics.hpp"

#include <gtest/gtest.h>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(Diagnostics, FormatsFileLineMessageAndText) {
  EXPECT_EQ(format_diagnostic({"a.csv", 7, "bad,line", "what is wrong", Severity::Error}),
            "a.csv:7: what is wrong\n    bad,line");
  EXPECT_EQ(format_diagnostic({"a.csv", 2, "x", "kept", Severity::Warning}),
            "a.csv:2: warning: kept\n    x");
  EXPECT_EQ(format_diagnostic({"a.csv", 0, "", "whole file", Severity::Error}), "a.csv: whole file");
}

TEST(Diagnostics, CountsErrorsAndWarnings) {
  Diagnostics d;
  EXPECT_EQ(d.summary(), "no problems");
  d.error("f", 1, "t", "e1");
  d.warning("f", 2, "t", "w1");
  d.error("f", 3, "t", "e2");
  EXPECT_EQ(d.error_count(), 2u);
  EXPECT_EQ(d.warning_count(), 1u);
  EXPECT_EQ(d.summary(), "2 bad lines skipped, 1 warning");
  EXPECT_EQ(d.format_all(), "f:1: e1\n    t\nf:2: warning: w1\n    t\nf:3: e2\n    t\n");
}

TEST(Diagnostics, StrictThrowsOnFirstErrorButNotOnWarnings) {
  Diagnostics d(/*strict=*/true);
  d.warning("f", 1, "t", "w");
  EXPECT_EQ(d.warning_count(), 1u);
  try {
    d.error("f", 4, "text", "broken");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f:4: broken\n    text");
  }
}

}  // namespace
}  // namespace gemmtune
