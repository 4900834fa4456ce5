// Validator comparison: every difference is explained by key with both values, and only real
// disagreements refuse a file (unless strict).
#include <gtest/gtest.h>

#include "tests/unit/engine/fake_backend.hpp"
#include "validator/collect.hpp"
#include "validator/compare.hpp"

namespace gemmtune {
namespace {

const Environment kRecorded{{"PT_VERSION", "2.11.0"},
                            {"GEMMTUNE_VERSION", "0.1.0"},
                            {"GPU_NAME", "NVIDIA H200"},
                            {"CUBLASLT_VERSION", "130100"}};

TEST(Compare, IdenticalEnvironmentsMatch) {
  const auto c = compare_environments(kRecorded, kRecorded);
  EXPECT_TRUE(c.matches());
  EXPECT_EQ(c.keys.size(), 4u);
}

TEST(Compare, DifferingValueIsExplainedWithBothValues) {
  Environment current = kRecorded;
  current.set("GPU_NAME", "NVIDIA H100 80GB HBM3");
  const auto c = compare_environments(kRecorded, current);
  EXPECT_FALSE(c.matches());
  EXPECT_EQ(c.mismatch_count(), 1u);
  EXPECT_EQ(c.explain_mismatches(),
            "  GPU_NAME: file has 'NVIDIA H200', current has 'NVIDIA H100 80GB HBM3'\n");
  EXPECT_NE(c.explain().find("MISMATCH  GPU_NAME"), std::string::npos);
}

TEST(Compare, KeysOnOneSideAreReportedButDoNotRefuse) {
  const Environment current{{"GEMMTUNE_VERSION", "0.1.0"}, {"GEMMTUNE_BACKEND", "cpu"}};
  const Environment recorded{{"PT_VERSION", "2.11.0"}, {"GEMMTUNE_VERSION", "0.1.0"}};
  const auto c = compare_environments(recorded, current);
  EXPECT_TRUE(c.matches());
  const std::string text = c.explain();
  EXPECT_NE(text.find("unchecked PT_VERSION = 2.11.0 (recorded in the file; not known here"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GEMMTUNE_BACKEND: not recorded in the file (current has 'cpu')"),
            std::string::npos)
      << text;
}

// Compared with another file (db check --against), the other side is that file, not this machine.
TEST(Compare, TheOtherSideIsNamedWhereItIsAFile) {
  Environment other{{"GEMMTUNE_VERSION", "0.1.0"},
                    {"GPU_NAME", "NVIDIA H100 80GB HBM3"},
                    {"GEMMTUNE_BACKEND", "cuda"}};
  auto c = compare_environments(kRecorded, other);
  c.compared_with = "b.csv";
  const std::string text = c.explain();
  EXPECT_NE(text.find("GPU_NAME: file has 'NVIDIA H200', b.csv has 'NVIDIA H100 80GB HBM3'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("PT_VERSION = 2.11.0 (recorded in the file; b.csv lacks it, so not checked)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GEMMTUNE_BACKEND: not recorded in the file (b.csv has 'cuda')"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("current"), std::string::npos) << text;
}

TEST(Compare, StrictKeysRefuseDifferentKeySets) {
  const Environment current{{"PT_VERSION", "2.11.0"}, {"CUBLASLT_VERSION", "130100"}};
  const Environment recorded{{"PT_VERSION", "2.11.0"}};
  EXPECT_TRUE(compare_environments(recorded, current).matches());
  EXPECT_FALSE(compare_environments(recorded, current, {.strict_keys = true}).matches());
}

// Under strict keys a key only the file has refuses it, and is explained so, not as "not checked".
TEST(CompareEnvironments, StrictKeysExplainAKeyOneSideLacksAsAMismatch) {
  const Environment recorded{{"PT_VERSION", "2.11.0"}};
  const Environment current{{"GEMMTUNE_VERSION", "0.1.0"}};
  const std::string text = compare_environments(recorded, current, {.strict_keys = true}).explain();
  EXPECT_NE(text.find("MISMATCH  PT_VERSION = 2.11.0 (recorded in the file; current lacks it)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("not checked"), std::string::npos) << text;
}

// A validator value with a comma is the whole rest of its line (PyTorch writes
// `Validator,KEY,VALUE` unquoted). In a list it is quoted whole: "GPU_NAME=Example GPU, rev 2,
// GEMMTUNE_VERSION=0.1.0" read as a GPU_NAME of "Example GPU" beside a validator " rev 2".
TEST(DescribeEnvironment, AValueWithACommaIsQuotedWhole) {
  const Environment env{
      {"GPU_NAME", "Example GPU, rev 2"}, {"GEMMTUNE_VERSION", "0.1.0"}, {"EMPTY", ""}};
  EXPECT_EQ(describe_environment(env),
            "GPU_NAME='Example GPU, rev 2', GEMMTUNE_VERSION=0.1.0, EMPTY=''");
}

TEST(Compare, AValueWithACommaIsExplainedWhole) {
  const Environment recorded{{"ROCM_VERSION", "6.0,1"}, {"PT_VERSION", "2.11.0"}};
  const std::string text = compare_environments(recorded, recorded).explain();
  EXPECT_NE(text.find("ok        ROCM_VERSION = '6.0,1'\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ok        PT_VERSION = 2.11.0\n"), std::string::npos) << text;
}

// A value with spaces round it (some CPUs' model names end in spaces) is collected without them:
// a results file's reader trims them, and the machine would not match the file it wrote.
TEST(CollectEnvironment, ValuesAreTrimmed) {
  testing::FakeBackend backend;
  backend.version_values =
      Environment{{"CPU_MODEL", "AMD EPYC 7J13 64-Core Processor   "}, {"FAKE_VERSION", "\t1 "}};
  const Environment env = collect_environment(backend);
  EXPECT_EQ(env.get("CPU_MODEL"), "AMD EPYC 7J13 64-Core Processor");
  EXPECT_EQ(env.get("FAKE_VERSION"), "1");
}

// A line break in a value would split its Validator line, and a '\r' would not read back: the
// machine would refuse the file it wrote. Control bytes are collected as spaces.
TEST(CollectEnvironment, ControlBytesInAValueBecomeSpaces) {
  testing::FakeBackend backend;
  backend.version_values =
      Environment{{"DRIVER", "535.104\r\n"}, {"GPU_NAME", "NVIDIA\nH100\t80GB"}};
  const Environment env = collect_environment(backend);
  EXPECT_EQ(env.get("DRIVER"), "535.104");
  EXPECT_EQ(env.get("GPU_NAME"), "NVIDIA H100 80GB");
}

}  // namespace
}  // namespace gemmtune
