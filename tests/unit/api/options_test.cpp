// Options: the GEMMTUNE_* variables (read once, bad values reported, never thrown over), the
// device ordinal in file names, and docs/options.md listing every variable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gemmtune/options.hpp"

namespace gemmtune {
namespace {

TEST(Options, DeviceOrdinalGoesBeforeTheExtension) {
  EXPECT_EQ(with_device_ordinal("tunableop_results.csv", 0), "tunableop_results0.csv");
  EXPECT_EQ(with_device_ordinal("dir.v1/results.db", 3), "dir.v1/results3.db");
  EXPECT_EQ(with_device_ordinal("results_%d_gpu.csv", 7), "results_7_gpu.csv");
  EXPECT_EQ(with_device_ordinal("results", 2), "results2");
}

TEST(Options, FromEnvironment) {
  ::setenv("GEMMTUNE_TUNING", "1", 1);
  ::setenv("GEMMTUNE_RECORD_UNTUNED", "true", 1);
  ::setenv("GEMMTUNE_ENABLED", "0", 1);
  ::setenv("GEMMTUNE_FILENAME", "mine.db", 1);
  ::setenv("GEMMTUNE_MAX_TUNING_ITERATIONS", "7", 1);
  ::setenv("GEMMTUNE_MAX_TUNING_DURATION_MS", "12.5", 1);
  ::setenv("GEMMTUNE_ROTATING_BUFFER_MB", "0", 1);
  ::setenv("GEMMTUNE_DEVICE", "banana", 1);
  const Options o = Options::from_environment();
  for (const char* v :
       {"GEMMTUNE_TUNING", "GEMMTUNE_RECORD_UNTUNED", "GEMMTUNE_ENABLED", "GEMMTUNE_FILENAME",
        "GEMMTUNE_MAX_TUNING_ITERATIONS", "GEMMTUNE_MAX_TUNING_DURATION_MS",
        "GEMMTUNE_ROTATING_BUFFER_MB", "GEMMTUNE_DEVICE"}) {
    ::unsetenv(v);
  }
  EXPECT_TRUE(o.tuning);
  EXPECT_TRUE(o.record_untuned);
  EXPECT_FALSE(o.enabled);
  EXPECT_EQ(o.filename, "mine.db");
  EXPECT_EQ(o.max_tuning_iterations, 7);
  EXPECT_DOUBLE_EQ(o.max_tuning_duration_ms, 12.5);
  ASSERT_TRUE(o.rotating_buffer_mb.has_value());
  EXPECT_EQ(*o.rotating_buffer_mb, 0.0);
  EXPECT_EQ(o.device, 0);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_NE(o.warnings[0].find("GEMMTUNE_DEVICE='banana'"), std::string::npos);
}

// An application must not stop for a misspelt variable: the default is kept, with a warning.
TEST(Options, AnUnknownBackendKeepsTheDefault) {
  ::setenv("GEMMTUNE_BACKEND", "foo", 1);
  Options o = Options::from_environment();
  EXPECT_EQ(o.backend, Options{}.backend);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0], "GEMMTUNE_BACKEND='foo' is not auto, cpu or cuda; using auto");
  ::setenv("GEMMTUNE_BACKEND", "cpu", 1);
  o = Options::from_environment();
  ::unsetenv("GEMMTUNE_BACKEND");
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_TRUE(o.warnings.empty());
}

TEST(Options, NonFiniteLimitsAreWarnedAboutAndIgnored) {
  ::setenv("GEMMTUNE_MAX_TUNING_DURATION_MS", "nan", 1);
  ::setenv("GEMMTUNE_ROTATING_BUFFER_MB", "inf", 1);
  const Options o = Options::from_environment();
  ::unsetenv("GEMMTUNE_MAX_TUNING_DURATION_MS");
  ::unsetenv("GEMMTUNE_ROTATING_BUFFER_MB");
  EXPECT_EQ(o.max_tuning_duration_ms, Options{}.max_tuning_duration_ms);
  EXPECT_FALSE(o.rotating_buffer_mb.has_value());
  ASSERT_EQ(o.warnings.size(), 2u);
  EXPECT_NE(o.warnings[0].find("'nan' is not a finite non-negative number"), std::string::npos)
      << o.warnings[0];
}

// A workspace of more than 1 TiB wrapped around in bytes, to a limit that left out every
// candidate needing one: from the environment it is warned about and the default kept.
TEST(Options, AWorkspaceAbove1TiBIsWarnedAboutAndIgnored) {
  ::setenv("GEMMTUNE_WORKSPACE_MB", "17592186044416", 1);
  const Options o = Options::from_environment();
  ::unsetenv("GEMMTUNE_WORKSPACE_MB");
  EXPECT_EQ(o.workspace_mb, Options{}.workspace_mb);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0],
            "GEMMTUNE_WORKSPACE_MB=17592186044416 is more than 1048576 (1 TiB); using 32");
}

// A check the Context's constructor refuses (std::invalid_argument, as from code) is warned about
// from the environment and "on" kept; before, the Context logged it and used "on" either way.
TEST(Options, AnUnknownNumericalCheckIsWarnedAboutAndIgnored) {
  ::setenv("GEMMTUNE_NUMERICAL_CHECK", "strict", 1);
  const Options o = Options::from_environment();
  ::unsetenv("GEMMTUNE_NUMERICAL_CHECK");
  EXPECT_EQ(o.numerical_check, "on");
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0],
            "GEMMTUNE_NUMERICAL_CHECK='strict' is not one of on, off or ATOL_RTOL (e.g. "
            "1e-5_1e-5); using on");
  ::setenv("GEMMTUNE_NUMERICAL_CHECK", "1e-2_1e-3", 1);
  const Options explicit_check = Options::from_environment();
  ::unsetenv("GEMMTUNE_NUMERICAL_CHECK");
  EXPECT_EQ(explicit_check.numerical_check, "1e-2_1e-3");
  EXPECT_TRUE(explicit_check.warnings.empty());
}

TEST(Options, EveryVariableIsDocumented) {
  std::ifstream in(GEMMTUNE_OPTIONS_DOC);
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  for (std::string_view v : Options::environment_variables()) {
    EXPECT_NE(text.str().find("| `" + std::string(v) + "`"), std::string::npos)
        << v << " is missing from the library table of docs/options.md";
  }
}

}  // namespace
}  // namespace gemmtune
