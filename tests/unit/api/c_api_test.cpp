// The C API: create from options, dispatch, lookup, the mode verbs, files and errors, with no
// exception crossing the boundary.
#include "gemmtune/gemmtune.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/unit/db/temp_dir.hpp"

namespace gemmtune::testing {
namespace {

TEST(CApi, CreateGemmLookupAndModes) {
  TempDir dir;
  const std::string results = (dir / "results.csv").string();
  const std::string untuned = (dir / "untuned.csv").string();
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.backend = "cpu";
  o.filename = results.c_str();
  o.untuned_filename = untuned.c_str();
  o.insert_device_ordinal = 0;
  o.record_untuned = 1;
  gemmtune_context* ctx = nullptr;
  ASSERT_EQ(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_SUCCESS) << gemmtune_last_error();

  gemmtune_problem p;
  gemmtune_problem_init(&p, GEMMTUNE_OP_GEMM, GEMMTUNE_FLOAT32, 'n', 'n', 8, 4, 2);
  EXPECT_EQ(p.lda, 8);
  std::vector<float> a(16, 1.f), b(8, 2.f), c(32, -1.f);
  ASSERT_EQ(gemmtune_gemm(ctx, &p, a.data(), b.data(), c.data(), 1.0, 0.0, nullptr),
            GEMMTUNE_SUCCESS);
  EXPECT_FLOAT_EQ(c[0], 4.f);
  char name[64];
  gemmtune_source source;
  ASSERT_EQ(gemmtune_lookup(ctx, &p, name, sizeof name, &source), GEMMTUNE_SUCCESS);
  EXPECT_STREQ(name, "Default");
  EXPECT_EQ(source, GEMMTUNE_SOURCE_UNTUNED);
  char tiny[3];
  EXPECT_EQ(gemmtune_lookup(ctx, &p, tiny, sizeof tiny, nullptr), GEMMTUNE_ERROR_BUFFER_TOO_SMALL);
  EXPECT_STREQ(tiny, "De");

  EXPECT_EQ(gemmtune_tuning_enable(ctx, 1), GEMMTUNE_SUCCESS);
  EXPECT_EQ(gemmtune_tuning_is_enabled(ctx), 1);
  EXPECT_EQ(gemmtune_set_max_tuning_iterations(ctx, 3), GEMMTUNE_SUCCESS);
  EXPECT_EQ(gemmtune_get_max_tuning_iterations(ctx), 3);
  char check[16];
  ASSERT_EQ(gemmtune_get_numerical_check(ctx, check, sizeof check), GEMMTUNE_SUCCESS);
  EXPECT_STREQ(check, "on");
  EXPECT_EQ(gemmtune_set_numerical_check(ctx, "1e-2_1e-3"), GEMMTUNE_SUCCESS);
  ASSERT_EQ(gemmtune_get_numerical_check(ctx, check, sizeof check), GEMMTUNE_SUCCESS);
  EXPECT_STREQ(check, "1e-2_1e-3");
  EXPECT_EQ(gemmtune_set_numerical_check(ctx, "maybe"), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_get_numerical_check(ctx, check, 4), GEMMTUNE_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(gemmtune_set_numerical_check(ctx, "on"), GEMMTUNE_SUCCESS);
  EXPECT_EQ(gemmtune_set_max_tuning_duration(ctx, -1), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_tuning_enable(ctx, 0), GEMMTUNE_SUCCESS);

  // Tune the recorded file from code, then the problem has a result.
  size_t tuned = 0, failed = 0;
  ASSERT_EQ(gemmtune_tune_file(ctx, untuned.c_str(), &tuned, &failed), GEMMTUNE_SUCCESS)
      << gemmtune_last_error();
  EXPECT_EQ(tuned, 1u);
  ASSERT_EQ(gemmtune_lookup(ctx, &p, name, sizeof name, &source), GEMMTUNE_SUCCESS);
  EXPECT_EQ(source, GEMMTUNE_SOURCE_TUNED);

  char file[512];
  ASSERT_EQ(gemmtune_get_filename(ctx, file, sizeof file), GEMMTUNE_SUCCESS);
  EXPECT_EQ(std::string(file), results);
  EXPECT_EQ(gemmtune_write_file(ctx, nullptr), GEMMTUNE_SUCCESS) << gemmtune_last_error();
  EXPECT_EQ(gemmtune_read_file(ctx, nullptr), GEMMTUNE_SUCCESS) << gemmtune_last_error();

  write_text(dir / "foreign.csv", "Validator,GEMMTUNE_BACKEND,cuda\n");
  EXPECT_EQ(gemmtune_read_file(ctx, (dir / "foreign.csv").string().c_str()),
            GEMMTUNE_ERROR_VALIDATOR_MISMATCH);
  EXPECT_NE(std::string(gemmtune_last_error()).find("GEMMTUNE_BACKEND"), std::string::npos);
  // A file that is no results file at all is bad input, not a file measured elsewhere: a CSV
  // file none of whose lines reads, a directory, a .db that is not SQLite.
  write_text(dir / "noise.csv", "just some text\nand more\n");
  write_text(dir / "junk.db", "not a database");
  std::filesystem::create_directories(dir / "adir.csv");
  for (const char* name : {"noise.csv", "junk.db", "adir.csv"}) {
    EXPECT_EQ(gemmtune_read_file(ctx, (dir / name).string().c_str()), GEMMTUNE_ERROR_BAD_INPUT)
        << name << ": " << gemmtune_last_error();
  }
  gemmtune_destroy(ctx);
  gemmtune_destroy(nullptr);
}

// Calls no solution can run are refused before any runs, as INVALID_ARGUMENT naming why, and are
// not recorded; so are limits that are not finite numbers >= 0.
TEST(CApi, InvalidCallsAndSettingsAreInvalidArguments) {
  TempDir dir;
  const std::string untuned = (dir / "untuned.csv").string();
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.backend = "cpu";
  o.insert_device_ordinal = 0;
  o.untuned_filename = untuned.c_str();
  o.record_untuned = 1;
  const std::string results = (dir / "results.csv").string();
  o.filename = results.c_str();
  gemmtune_context* ctx = nullptr;
  ASSERT_EQ(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_SUCCESS) << gemmtune_last_error();
  std::vector<float> a(64, 1.f), b(64, 1.f), c(64, 0.f);
  gemmtune_problem p;
  gemmtune_problem_init(&p, GEMMTUNE_OP_GEMM, GEMMTUNE_FLOAT32, 'n', 'n', 8, 8, 8);
  EXPECT_EQ(gemmtune_gemm(ctx, &p, nullptr, b.data(), c.data(), 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("A is a null pointer"), std::string::npos);
  EXPECT_EQ(gemmtune_gemm(ctx, &p, a.data(), b.data(), nullptr, 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  gemmtune_problem narrow = p;
  narrow.lda = 4;  // smaller than m
  EXPECT_EQ(gemmtune_gemm(ctx, &narrow, a.data(), b.data(), c.data(), 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("lda=4"), std::string::npos)
      << gemmtune_last_error();
  gemmtune_problem bias = p;
  bias.op = GEMMTUNE_OP_GEMM_AND_BIAS;
  bias.bias_type = GEMMTUNE_FLOAT32;
  EXPECT_EQ(gemmtune_gemm(ctx, &bias, a.data(), b.data(), c.data(), 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("without a bias"), std::string::npos);
  gemmtune_problem typo;
  gemmtune_problem_init(&typo, GEMMTUNE_OP_GEMM, GEMMTUNE_FLOAT32, 'x', 'n', 8, 8, 8);
  EXPECT_EQ(gemmtune_gemm(ctx, &typo, a.data(), b.data(), c.data(), 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  // An op or dtype a C caller stored outside the enumerators (C allows it): refused, read as the
  // int it is (loaded as the C++ enum it is undefined, which UBSan reports).
  for (const int stored : {9, -1}) {
    gemmtune_problem bad_op = p;
    std::memcpy(&bad_op.op, &stored, sizeof stored);
    EXPECT_EQ(gemmtune_gemm(ctx, &bad_op, a.data(), b.data(), c.data(), 1, 0, nullptr),
              GEMMTUNE_ERROR_INVALID_ARGUMENT);
    gemmtune_problem bad_dtype = p;
    std::memcpy(&bad_dtype.c_type, &stored, sizeof stored);
    EXPECT_EQ(gemmtune_gemm(ctx, &bad_dtype, a.data(), b.data(), c.data(), 1, 0, nullptr),
              GEMMTUNE_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(gemmtune_set_max_tuning_duration(ctx, std::nan("")), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_set_max_warmup_duration(ctx, INFINITY), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_set_max_tuning_iterations(ctx, -5), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  gemmtune_destroy(ctx);
  // None of the refused calls was recorded as a GEMM to tune.
  std::error_code ec;
  EXPECT_TRUE(!std::filesystem::exists(untuned, ec) || read_text(untuned).empty())
      << read_text(untuned);

  o.max_tuning_iterations = -5;
  ctx = nullptr;
  EXPECT_EQ(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);

  // A misspelt backend is a bad setting, not a backend that is not there.
  gemmtune_options misspelt;
  gemmtune_options_init(&misspelt);
  misspelt.backend = "gpu";
  EXPECT_EQ(gemmtune_create_with_options(&misspelt, &ctx), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("unknown backend 'gpu'"), std::string::npos)
      << gemmtune_last_error();
  EXPECT_EQ(ctx, nullptr);
}

// What C++ callers set in Options, C callers set too: the log callback gets the Context's
// messages, the load report says what a file's load skipped, and the tuning settings are checked
// as the C++ API checks them.
TEST(CApi, LogLoadReportAndTuningSettings) {
  TempDir dir;
  const std::string results = (dir / "results.csv").string();
  write_text(dir / "results.csv",
             "GemmTunableOp_float_NN,nn_8_8_8_ld_8_8_8,Default,0.01\nnot a results line\n");
  std::vector<std::string> logged;
  gemmtune_options o;
  gemmtune_options_init(&o);
  EXPECT_LT(o.rotating_buffer_mb, 0);  // the default: from the last-level cache
  EXPECT_STREQ(o.numerical_check, "on");
  EXPECT_EQ(o.workspace_mb, 32u);
  o.backend = "cpu";
  o.filename = results.c_str();
  o.insert_device_ordinal = 0;
  o.rotating_buffer_mb = 4;
  o.log = [](const char* message, void* user_data) {
    static_cast<std::vector<std::string>*>(user_data)->emplace_back(message);
  };
  o.log_user_data = &logged;
  gemmtune_context* ctx = nullptr;
  ASSERT_EQ(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_SUCCESS) << gemmtune_last_error();
  EXPECT_EQ(gemmtune_get_rotating_buffer_size(ctx), 4);

  gemmtune_load_report report;
  char message[512];
  ASSERT_EQ(gemmtune_get_load_report(ctx, &report, message, sizeof message), GEMMTUNE_SUCCESS);
  EXPECT_EQ(report.found, 1);
  EXPECT_EQ(report.accepted, 1);
  EXPECT_EQ(report.entries, 1u);
  EXPECT_EQ(report.bad_lines, 1u);
  EXPECT_NE(std::string(message).find("results.csv:2"), std::string::npos) << message;
  std::string all;
  for (const auto& m : logged) all += m + "\n";
  EXPECT_NE(all.find("results.csv:2"), std::string::npos) << all;
  EXPECT_EQ(report.message_length, std::strlen(message));
  // Cut to fit, the report still filled: the message names every bad line, and may not fit.
  gemmtune_load_report cut{};
  char tiny[4];
  EXPECT_EQ(gemmtune_get_load_report(ctx, &cut, tiny, sizeof tiny),
            GEMMTUNE_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(cut.bad_lines, 1u);
  EXPECT_EQ(cut.message_length, report.message_length);
  EXPECT_EQ(std::strlen(tiny), 3u);

  EXPECT_EQ(gemmtune_set_numerical_check(ctx, "1e-3_1e-3"), GEMMTUNE_SUCCESS);
  EXPECT_EQ(gemmtune_set_numerical_check(ctx, "strict"), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("'strict'"), std::string::npos)
      << gemmtune_last_error();
  EXPECT_EQ(gemmtune_set_rotating_buffer_size(ctx, std::nan("")), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_set_rotating_buffer_size(ctx, -1), GEMMTUNE_SUCCESS);
  EXPECT_EQ(gemmtune_get_rotating_buffer_size(ctx), -1);
  gemmtune_destroy(ctx);

  gemmtune_options bad = o;
  bad.numerical_check = "strict";
  ctx = nullptr;
  EXPECT_EQ(gemmtune_create_with_options(&bad, &ctx), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  bad = o;
  bad.workspace_mb = (size_t{1} << 20) + 1;  // more than 1 TiB
  EXPECT_EQ(gemmtune_create_with_options(&bad, &ctx), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  bad = o;
  bad.rotating_buffer_mb = std::nan("");  // not "< 0: the default"
  EXPECT_EQ(gemmtune_create_with_options(&bad, &ctx), GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ctx, nullptr);
  // A device the backend lacks is not there, as a GPU on a machine without one.
  bad = o;
  bad.device = 1;
  EXPECT_EQ(gemmtune_create_with_options(&bad, &ctx), GEMMTUNE_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(gemmtune_last_error()).find("the CPU backend has one device"),
            std::string::npos)
      << gemmtune_last_error();
  EXPECT_EQ(ctx, nullptr);
}

// fp8 ScaledGemm from C: its scales reach the solution, and missing ones are refused.
TEST(CApi, ScaledGemmTakesItsScales) {
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.backend = "cpu";
  o.enabled = 0;  // Default, with nothing read or written
  gemmtune_context* ctx = nullptr;
  ASSERT_EQ(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_SUCCESS) << gemmtune_last_error();
  gemmtune_problem p;
  ASSERT_EQ(gemmtune_problem_parse("ScaledGemmTunableOp_Float8_e4m3fn_Float8_e4m3fn_BFloat16_TN",
                                   "tn_16_8_32_ld_32_32_16_rw_0_bias_None", &p),
            GEMMTUNE_SUCCESS)
      << gemmtune_last_error();
  const std::vector<std::uint8_t> a(32 * 16, 0x38), b(32 * 8, 0x38);  // e4m3 1.0
  std::vector<std::uint16_t> c(16 * 8, 0);
  const float scale_a = 2.f, scale_b = 0.5f;
  ASSERT_EQ(gemmtune_scaled_gemm(ctx, &p, a.data(), b.data(), c.data(), &scale_a, &scale_b, nullptr,
                                 nullptr, 0, 1.0, 0.0, nullptr),
            GEMMTUNE_SUCCESS)
      << gemmtune_last_error();
  EXPECT_EQ(c[0], 0x4200);  // bf16 32 = k · 1 · 1 · 2 · 0.5
  EXPECT_EQ(c[16 * 8 - 1], 0x4200);
  EXPECT_EQ(gemmtune_scaled_gemm(ctx, &p, a.data(), b.data(), c.data(), &scale_a, nullptr, nullptr,
                                 nullptr, 0, 1.0, 0.0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("scales"), std::string::npos);
  gemmtune_destroy(ctx);
}

TEST(CApi, ErrorsAreStatuses) {
  gemmtune_problem p;
  EXPECT_EQ(gemmtune_problem_parse("GemmTunableOp_Quarter_NN", "nn_1_1_1_ld_1_1_1", &p),
            GEMMTUNE_ERROR_BAD_INPUT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("Quarter"), std::string::npos);
  ASSERT_EQ(gemmtune_problem_parse("GemmStridedBatchedTunableOp_Half_TN",
                                   "tn_128_128_64_B_12_ld_64_2304_128", &p),
            GEMMTUNE_SUCCESS);
  EXPECT_EQ(p.op, GEMMTUNE_OP_GEMM_STRIDED_BATCHED);
  EXPECT_EQ(p.batch, 12);
  EXPECT_EQ(p.a_type, GEMMTUNE_FLOAT16);
  EXPECT_EQ(gemmtune_gemm(nullptr, &p, nullptr, nullptr, nullptr, 1, 0, nullptr),
            GEMMTUNE_ERROR_INVALID_ARGUMENT);
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.backend = "tpu";
  gemmtune_context* ctx = nullptr;
  EXPECT_NE(gemmtune_create_with_options(&o, &ctx), GEMMTUNE_SUCCESS);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_STREQ(gemmtune_status_string(GEMMTUNE_ERROR_VALIDATOR_MISMATCH), "validator mismatch");
  EXPECT_STREQ(gemmtune_library_version(), "0.1.0");
}

}  // namespace
}  // namespace gemmtune::testing
