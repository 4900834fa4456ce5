// micro_perf workloads, both forms: expansion counts and order, overrides, errors naming the file
// and the JSON path, dtype names, and the column-major problem of a case.
#include "drivers/bench/workload.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tuner/error.hpp"

namespace gemmtune::bench {
namespace {

struct Mkn {
  std::int64_t m, k, n;
  std::string dtype;
  friend bool operator==(const Mkn&, const Mkn&) = default;
};

std::ostream& operator<<(std::ostream& os, const Mkn& x) {
  return os << x.m << "x" << x.k << "x" << x.n << " " << x.dtype;
}

std::vector<Mkn> shapes(const Workload& w) {
  std::vector<Mkn> out;
  for (const auto& c : w.cases) out.push_back({c.m, c.k, c.n, c.dtype});
  return out;
}

// The InputError message of parsing `text` as `file`.
std::string error_of(const std::string& text, const std::string& file = "w.json",
                     const WorkloadOverrides& overrides = {}) {
  try {
    parse_workload(text, file, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Workload, OldFormInputShapeListIsDtypeMajor) {
  const Workload w = parse_workload(R"({
    "operator": "gemm", "iterations": 20,
    "input_shape_list": [[[32, 48], [48, 40]], [[64, 64], [64, 64]], [[16, 128], [128, 24]]],
    "dtype": ["float32", "bfloat16"]})",
                                    "gemm_small.json");
  EXPECT_EQ(w.form, "input_shape_list");
  EXPECT_EQ(w.name, "gemm_small.json");
  const std::vector<Mkn> want{{32, 48, 40, "float32"},  {64, 64, 64, "float32"},
                              {16, 128, 24, "float32"}, {32, 48, 40, "bfloat16"},
                              {64, 64, 64, "bfloat16"}, {16, 128, 24, "bfloat16"}};
  EXPECT_EQ(shapes(w), want);
  for (const auto& c : w.cases) {
    EXPECT_EQ(c.iterations, 20);
    EXPECT_EQ(c.op, "gemm");
    EXPECT_TRUE(c.runnable());
  }
  EXPECT_EQ(w.cases[4].origin, "input_shape_list[1]");
  EXPECT_EQ(w.cases[3].gemm_dtype, DType::BFloat16);
  EXPECT_EQ(w.cases[0].arguments.dump(), R"({"dtype":"float32","input_shapes":[[32,48],[48,40]]})");
}

// perf_engine.py's parse_workload: input_shape_list, or else "M/K/N" triples, then
// input_shape_groups as well, all of them run.
TEST(Workload, OldFormShapeSourcesAddUpAsPerfEngine) {
  const Workload both = parse_workload(R"({"operator": "gemm", "dtype": ["float32"],
      "input_shape_list": [[[2, 3], [3, 4]]], "M/K/N": [[9, 9, 9]],
      "input_shape_groups": {"M": [5], "KN": [[6, 7]]}})",
                                       "w.json");
  EXPECT_EQ(both.form, "input_shape_list+input_shape_groups");
  EXPECT_EQ(shapes(both), (std::vector<Mkn>{{2, 3, 4, "float32"}, {5, 6, 7, "float32"}}));
  const Workload triples = parse_workload(R"({"operator": "gemm", "dtype": ["float32"],
      "M/K/N": [[8, 16, 32], [1, 2, 3]], "input_shape_groups": {"M": [5], "KN": [[6, 7]]}})",
                                          "w.json");
  EXPECT_EQ(triples.form, "M/K/N+input_shape_groups");
  EXPECT_EQ(shapes(triples),
            (std::vector<Mkn>{{8, 16, 32, "float32"}, {1, 2, 3, "float32"}, {5, 6, 7, "float32"}}));
  EXPECT_EQ(triples.cases[1].origin, "M/K/N[1]");
  // Without "operator", named by the file as micro_perf names it.
  EXPECT_EQ(parse_workload(R"({"M/K/N": [[8, 16, 32]]})", "gemm.json").cases.size(), 1u);
}

TEST(Workload, OldFormDefaultsAndAScalarDtype) {
  const Workload w =
      parse_workload(R"({"operator": "GEMM", "input_shape_list": [[[2, 3], [3, 4]]]})", "x.json");
  ASSERT_EQ(w.cases.size(), 1u);
  EXPECT_EQ(w.cases[0].dtype, "float32");  // micro_perf's default
  EXPECT_EQ(w.cases[0].iterations, kDefaultIterations);
  const Workload h = parse_workload(
      R"({"operator": "gemm", "dtype": "half", "input_shape_list": [[[2, 3], [3, 4]]]})", "x.json");
  EXPECT_EQ(h.cases[0].gemm_dtype, DType::Float16);
}

TEST(Workload, OldFormShapeGroupsExpandAsPerfEngine) {
  const Workload w = parse_workload(R"({"operator": "gemm", "dtype": ["float32"],
    "input_shape_groups": [
      {"M": [1, 2], "KN": [[4, 5], [6, 7]]},
      {"M": [8], "K": [9, 10], "N": [11]},
      {"MN": [[12, 13]], "K": [14, 15]},
      {"MK": [[16, 17]], "N": [18]},
      {"inputs": [[[19, 20], [21]], [[21], [22, 23]]]}
    ]})",
                                    "gemm.json");
  EXPECT_EQ(w.form, "input_shape_groups");
  const std::vector<Mkn> want{
      {1, 4, 5, "float32"},    {1, 6, 7, "float32"},    {2, 4, 5, "float32"},
      {2, 6, 7, "float32"},    {8, 9, 11, "float32"},   {8, 10, 11, "float32"},
      {12, 14, 13, "float32"}, {12, 15, 13, "float32"}, {16, 17, 18, "float32"},
      {19, 21, 22, "float32"}, {20, 21, 23, "float32"},  // inputs: each one's product, zipped
  };
  EXPECT_EQ(shapes(w), want);
  EXPECT_EQ(w.cases[4].origin, "input_shape_groups[1]");
  // One group (an object rather than a list of them).
  const Workload one = parse_workload(
      R"({"operator": "gemm", "input_shape_groups": {"M": [3], "KN": [[4, 5]]}})", "gemm.json");
  EXPECT_EQ(shapes(one), (std::vector<Mkn>{{3, 4, 5, "float32"}}));
}

// micro_perf's workloads/basic/gemm_ops/gemm.json, shortened: the keys in file order, the last
// one turning fastest, "K.N" setting both names from one entry.
TEST(Workload, CasesFormIsACartesianProductInKeyOrder) {
  const Workload w = parse_workload(R"({"cases": [{
      "arg_type": "default",
      "dtype": ["float32", "half", "int8"],
      "K.N": [[64, 48], [32, 96]],
      "M": [8, 40]}]})",
                                    "gemm.json");
  EXPECT_EQ(w.form, "cases");
  ASSERT_EQ(w.cases.size(), 12u);
  const std::vector<Mkn> first_six{{8, 64, 48, "float32"}, {40, 64, 48, "float32"},
                                   {8, 32, 96, "float32"}, {40, 32, 96, "float32"},
                                   {8, 64, 48, "half"},    {40, 64, 48, "half"}};
  const std::vector<Mkn> all = shapes(w);
  EXPECT_EQ(std::vector<Mkn>(all.begin(), all.begin() + 6), first_six);
  EXPECT_EQ(w.cases[11].dtype, "int8");
  EXPECT_FALSE(w.cases[11].runnable());
  EXPECT_NE(w.cases[11].skip_reason.find("int8"), std::string::npos);
  EXPECT_EQ(w.cases[4].gemm_dtype, DType::Float16);
  EXPECT_EQ(w.cases[0].origin, "cases[0]");
  EXPECT_EQ(w.cases[0].iterations, kDefaultIterations);
  // The expanded arguments, as micro_perf passes them to its op: the dotted key split.
  EXPECT_EQ(w.cases[2].arguments.dump(),
            R"({"arg_type":"default","dtype":"float32","M":8,"K":32,"N":96})");
}

TEST(Workload, CasesFormFollowsTheFilesKeyOrder) {
  const Workload w = parse_workload(
      R"({"operator": "gemm", "iterations": 7,
          "cases": [{"M": [1, 2], "dtype": ["float32", "bfloat16"], "K": 3, "N": [4, 5]},
                    {"M": 9, "K": 9, "N": 9, "dtype": "float32", "iterations": 3}]})",
      "anything.json");
  const std::vector<Mkn> want{{1, 3, 4, "float32"},  {1, 3, 5, "float32"},  {1, 3, 4, "bfloat16"},
                              {1, 3, 5, "bfloat16"}, {2, 3, 4, "float32"},  {2, 3, 5, "float32"},
                              {2, 3, 4, "bfloat16"}, {2, 3, 5, "bfloat16"}, {9, 9, 9, "float32"}};
  EXPECT_EQ(shapes(w), want);
  EXPECT_EQ(w.cases[0].iterations, 7);  // the file's top-level iterations
  EXPECT_EQ(w.cases[8].iterations, 3);  // the case's own
  EXPECT_EQ(w.cases[8].origin, "cases[1]");
}

TEST(Workload, NamedOperatorAndBareListForms) {
  const Workload named =
      parse_workload(R"({"gemm": [{"M": [1, 2], "K": 3, "N": 4, "dtype": "bfloat16"}]})", "a.json");
  EXPECT_EQ(shapes(named), (std::vector<Mkn>{{1, 3, 4, "bfloat16"}, {2, 3, 4, "bfloat16"}}));
  EXPECT_EQ(named.cases[1].origin, "gemm[0]");
  const Workload bare =
      parse_workload(R"([{"M": 5, "K": 6, "N": 7, "dtype": "tfloat32"}])", "dir/gemm.json");
  ASSERT_EQ(bare.cases.size(), 1u);
  EXPECT_EQ(bare.cases[0].gemm_dtype, DType::TF32);
  EXPECT_EQ(bare.cases[0].origin, "[0]");
}

TEST(Workload, BatchArgTypeIsTakenAsItIs) {
  const Workload w = parse_workload(
      R"({"cases": [{"arg_type": "batch_default", "M": 2, "K": 3, "N": 4, "dtype": "float32",
                     "note": [1, 2, 3]}]})",
      "gemm.json");
  ASSERT_EQ(w.cases.size(), 1u);  // the list is not expanded
  EXPECT_EQ(w.cases[0].arguments["note"].size(), 3u);
}

TEST(Workload, OverridesReplaceDtypesAndIterations) {
  WorkloadOverrides o;
  o.dtypes = {"bfloat16", "float32"};
  o.iterations = 5;
  const Workload old = parse_workload(
      R"({"operator": "gemm", "iterations": 50, "dtype": ["half"],
          "input_shape_list": [[[2, 3], [3, 4]]]})",
      "x.json", o);
  EXPECT_EQ(shapes(old), (std::vector<Mkn>{{2, 3, 4, "bfloat16"}, {2, 3, 4, "float32"}}));
  EXPECT_EQ(old.cases[0].iterations, 5);
  // In the cases form the dtype axis keeps its place in the key order.
  const Workload cases = parse_workload(
      R"({"cases": [{"dtype": ["half"], "M": [1, 2], "K": 3, "N": 4}]})", "gemm.json", o);
  EXPECT_EQ(shapes(cases), (std::vector<Mkn>{{1, 3, 4, "bfloat16"},
                                             {2, 3, 4, "bfloat16"},
                                             {1, 3, 4, "float32"},
                                             {2, 3, 4, "float32"}}));
  // A case without a dtype takes the override's.
  const Workload none = parse_workload(R"({"cases": [{"M": 1, "K": 3, "N": 4}]})", "gemm.json", o);
  EXPECT_EQ(none.cases.size(), 2u);
  WorkloadOverrides bad;
  bad.dtypes = {"quarter"};
  const std::string e = error_of(R"({"cases": [{"M": 1, "K": 3, "N": 4}]})", "gemm.json", bad);
  EXPECT_NE(e.find("--dtype quarter: unknown dtype"), std::string::npos) << e;
}

TEST(Workload, ErrorsNameTheFileAndThePath) {
  EXPECT_EQ(error_of(R"({"cases": [{"M": 1, "K": 2, "N": 3, "dtype": "float32"},
                                   {"M": 1, "K": 2, "N": 3, "dtype": "float32"},
                                   {"M": [8, -4], "K": 2, "N": 3, "dtype": "float32"}]})",
                     "gemm.json"),
            "gemm.json: cases[2].M[1]: expected a positive integer (at most 2147483647), got -4");
  EXPECT_EQ(error_of(R"({"cases": [{"M": 1, "K": 2.5, "N": 3, "dtype": "float32"}]})", "gemm.json"),
            "gemm.json: cases[0].K: expected a positive integer (at most 2147483647), got 2.5");
  EXPECT_EQ(
      error_of(R"({"cases": [{"M": 1, "K.N": [[2, 3], [4]], "dtype": "float32"}]})", "gemm.json"),
      "gemm.json: cases[0][\"K.N\"][1]: expected a list of 2 values (K.N), got [4]");
  EXPECT_EQ(error_of(R"({"cases": [{"M": 1, "K": 2, "dtype": "float32"}]})", "gemm.json"),
            "gemm.json: cases[0]: no N: a gemm case needs M, K, N and dtype");
  EXPECT_EQ(error_of(R"({"cases": [{"M": [], "K": 2, "N": 3, "dtype": "float32"}]})", "gemm.json"),
            "gemm.json: cases[0].M: an empty list expands to no case");
  EXPECT_EQ(error_of(R"({"operator": "gemm",
                         "input_shape_list": [[[2, 3], [3, 4]], [[2, 3], [5, 4]]]})"),
            "w.json: input_shape_list[1]: the K of a [M, K] (3) and of b [K, N] (5) differ");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "input_shape_list": [[[2, 0], [3, 4]]]})"),
            "w.json: input_shape_list[0][0][1]: expected a positive integer (at most "
            "2147483647), got 0");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "input_shape_list": [[2, 3]]})"),
            "w.json: input_shape_list[0]: expected [[M, K], [K, N]], got [2,3]");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "input_shape_groups": {"M": [1], "batch_size": [2],
                                                                    "K": [1], "N": [1]}})"),
            "w.json: input_shape_groups.batch_size: batched and grouped gemm are not supported: "
            "gemmtune bench runs gemm");
  // The newer form's batched and grouped cases are refused too, not measured as one GEMM.
  EXPECT_EQ(error_of(R"({"cases": [{"arg_type": "batch_gemm", "batch_size": [1, 8], "M": 2,
                                    "K": 3, "N": 4, "dtype": "float32"}]})",
                     "gemm.json"),
            "gemm.json: cases[0].batch_size: batched gemm (batch_size [1,8]) is not supported: "
            "gemmtune bench runs one gemm per case");
  EXPECT_EQ(error_of(R"({"cases": [{"batch_size": [1, 8], "M": 2, "K": 3, "N": 4,
                                    "dtype": "float32"}]})",
                     "gemm.json"),
            "gemm.json: cases[0].batch_size[1]: batched gemm (batch_size 8) is not supported: "
            "gemmtune bench runs one gemm per case");
  EXPECT_EQ(error_of(R"({"cases": [{"gemm_group": 4, "M": 2, "K": 3, "N": 4,
                                    "dtype": "float32"}]})",
                     "gemm.json"),
            "gemm.json: cases[0].gemm_group: grouped gemm is not supported: gemmtune bench runs "
            "one gemm per case");
  EXPECT_EQ(parse_workload(R"({"cases": [{"batch_size": 1, "M": 2, "K": 3, "N": 4,
                                          "dtype": "float32"}]})",
                           "gemm.json")
                .cases.size(),
            1u);
  EXPECT_EQ(error_of(R"({"operator": "gemm", "M/K/N": [[2, 3]]})"),
            "w.json: M/K/N[0]: expected [M, K, N], got [2,3]");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "M/K/N": [[2, 3, 4]], "batch_size": [2]})"),
            "w.json: batch_size: \"M/K/N\" with a batch_size is micro_perf's batch_gemm; "
            "gemmtune bench runs gemm");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "input_shape_list": [[[2, 3], [3, 4]]],
                         "cases": [{"M": 2, "K": 3, "N": 4, "dtype": "float32"}]})"),
            "w.json: input_shape_list: a workload gives its GEMMs as cases or as shapes, not both: "
            "which to run is not clear");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "input_shape_groups": {"M": [1]}})"),
            "w.json: input_shape_groups: give M, K and N, or MN and K, or MK and N, or M and KN "
            "(lists of sizes)");
  EXPECT_EQ(error_of(R"({"operator": "gemm", "iterations": 0, "input_shape_list": []})"),
            "w.json: iterations: expected a positive number of iterations, got 0");
  EXPECT_EQ(error_of("[1, 2"), error_of("[1, 2"));  // deterministic
  EXPECT_EQ(error_of("[1, 2").rfind("w.json: not valid JSON: ", 0), 0u) << error_of("[1, 2");
  EXPECT_EQ(error_of("42"), "w.json: expected a JSON object (or a list of cases), got 42");
}

TEST(Workload, OnlyGemmIsSupported) {
  EXPECT_EQ(error_of(R"({"operator": "softmax", "input_shape_list": [[[2, 3], [3, 4]]]})"),
            "w.json: operator: operator \"softmax\" is not supported: gemmtune bench runs gemm");
  EXPECT_EQ(error_of(R"({"gemm": [], "flash_attention": [{"q_len": 1}]})"),
            "w.json: flash_attention: operator \"flash_attention\" is not supported: gemmtune "
            "bench runs gemm");
  // The cases form names its operator by the file, as micro_perf does.
  const std::string e =
      error_of(R"({"cases": [{"M": 1, "K": 2, "N": 3, "dtype": "float32"}]})", "llm_shapes.json");
  EXPECT_NE(e.find("llm_shapes.json: in this form micro_perf names the operator by the file "
                   "(\"llm_shapes\")"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("name the file gemm.json or add \"operator\": \"gemm\""), std::string::npos);
  EXPECT_NO_THROW(parse_workload(
      R"({"operator": "gemm", "cases": [{"M": 1, "K": 2, "N": 3, "dtype": "float32"}]})",
      "llm_shapes.json"));
}

TEST(Workload, UnknownDtypesListTheKnownOnes) {
  const std::string e = error_of(R"({"operator": "gemm", "dtype": ["float32", "quarter"],
                   "input_shape_list": [[[2, 3], [3, 4]]]})");
  EXPECT_EQ(e.rfind("w.json: dtype[1]: unknown dtype \"quarter\"; known: float32 (float), "
                    "tfloat32 (tf32), float16 (half), bfloat16",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("skipped: int8"), std::string::npos) << e;
  const std::string in_case =
      error_of(R"({"cases": [{"M": 1, "K": 2, "N": 3, "dtype": ["half", 7]}]})", "gemm.json");
  EXPECT_EQ(in_case, "gemm.json: cases[0].dtype[1]: expected a dtype name, got 7");
}

TEST(Workload, AMissingFileOrADirectoryIsAnInputErrorSayingSo) {
  try {
    load_workload("/nonexistent/gemm.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/gemm.json: cannot open: No such file or directory");
  }
  // An ifstream reads a directory as an empty file, which was "not valid JSON".
  try {
    load_workload(GEMMTUNE_TEST_FIXTURES "/bench");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bench: is a directory, not a file"), std::string::npos)
        << e.what();
  }
}

TEST(Workload, TheFixturesParse) {
  const Workload small = load_workload(GEMMTUNE_TEST_FIXTURES "/bench/gemm_small.json");
  EXPECT_EQ(small.cases.size(), 6u);
  const Workload cases = load_workload(GEMMTUNE_TEST_FIXTURES "/bench/gemm.json");
  EXPECT_EQ(cases.cases.size(), 12u);
  for (const char* example : {"gemm_llm.json", "gemm_cpu.json"}) {
    const Workload w =
        load_workload(std::string(GEMMTUNE_SOURCE_DIR "/bench/workloads/") + example);
    EXPECT_FALSE(w.cases.empty()) << example;
  }
}

}  // namespace
}  // namespace gemmtune::bench
