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
  EXPECT_EQ(format_diagnostic({"a.csv", 0, "", "whole file", Severity::Error}),
            "a.csv: whole file");
}

// A line of megabytes (another kind of file run together) is shown in part, and control bytes
// (a NUL, a terminal's escape sequence) as \xNN, in the line and in a message quoting it.
TEST(Diagnostics, ShowsPartOfAHugeLineAndEscapesControlBytes) {
  const std::string huge = "GemmTunableOp_float_NN,nn_1_1_1,Default," + std::string(3'000'000, '9');
  const Diagnostic d{"f.csv", 3, huge, "time_ms is not a number: '" + huge + "'", Severity::Error};
  const std::string shown = format_diagnostic(d);
  EXPECT_LT(shown.size(), 1000u);
  EXPECT_NE(shown.find("f.csv:3: time_ms is not a number: 'GemmTunableOp_float_NN"),
            std::string::npos);
  EXPECT_NE(shown.find("… (" + std::to_string(huge.size() - 200) + " more bytes)"),
            std::string::npos)
      << shown;
  // Cut before a UTF-8 character, never inside it: "é" is two bytes, the second at byte 200.
  const std::string accented = std::string(199, 'x') + "é" + std::string(50, 'y');
  const std::string cut = format_diagnostic({"f.csv", 2, accented, "bad", Severity::Error});
  EXPECT_NE(cut.find(std::string(199, 'x') + "… (52 more bytes)"), std::string::npos) << cut;
  const Diagnostic control{"f.csv", 1, std::string("a\0b\x1b[2Jc", 8), "bad", Severity::Error};
  EXPECT_EQ(format_diagnostic(control), "f.csv:1: bad\n    a\\x00b\\x1b[2Jc");
}

TEST(Diagnostics, CountsErrorsAndWarnings) {
  Diagnostics d;
  EXPECT_EQ(d.summary(), "no bad lines");
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
