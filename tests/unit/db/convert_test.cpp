// Convert: CSV → SQLite → CSV gives the same bytes; several environments do not fit one CSV
// file unless one is selected.
#include "db/convert.hpp"

#include <gtest/gtest.h>

#include "db/csv_results.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

TEST(Convert, CsvToSqliteToCsvIsByteExact) {
  testing::TempDir dir;
  const auto original = testing::fixture("mistral_bf16_results.csv");
  Diagnostics d;
  auto report = convert_file(original, dir / "r.db", {}, d);
  EXPECT_EQ(report.tables, 1u);
  EXPECT_EQ(report.entries, 34u);
  report = convert_file(dir / "r.db", dir / "back.csv", {}, d);
  EXPECT_EQ(report.entries, 34u);
  EXPECT_TRUE(d.empty()) << d.format_all();
  EXPECT_EQ(testing::read_text(dir / "back.csv"), testing::read_text(original));
}

TEST(Convert, KeepsValidatorOrderExtrasAndUnknownKinds) {
  testing::TempDir dir;
  const std::string text =
      "Validator,PT_VERSION,2.11.0\n"
      "Validator,ROCBLAS_VERSION,4.0\n"
      "Validator,GCN_ARCH_NAME,gfx942\n"
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,1e-05,extra,\n"
      "FutureTunableOp_Float4_NN,nn_8_8_8_ld_8_8_8_z_1,Default,0.0100\n";
  testing::write_text(dir / "in.csv", text);
  Diagnostics d;
  convert_file(dir / "in.csv", dir / "mid.sqlite3", {}, d);
  convert_file(dir / "mid.sqlite3", dir / "out.csv", {}, d);
  EXPECT_EQ(testing::read_text(dir / "out.csv"), text);
}

TEST(Convert, SeveralEnvironmentsIntoCsvNeedASelection) {
  testing::TempDir dir;
  auto db = open_results_store(dir / "multi.db");
  db->append(Environment{{"PT_VERSION", "2.11.0"}},
             {"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8", "A", 0.5, {}});
  db->append(Environment{{"PT_VERSION", "2.12.0"}},
             {"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8", "B", 0.4, {}});
  Diagnostics d;
  try {
    convert_file(dir / "multi.db", dir / "out.csv", {}, d);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("holds 2 environments, but a CSV file holds one"), std::string::npos);
    EXPECT_NE(what.find("1: PT_VERSION=2.11.0 (1 entries)"), std::string::npos) << what;
    EXPECT_NE(what.find("2: PT_VERSION=2.12.0 (1 entries)"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out.csv"));

  convert_file(dir / "multi.db", dir / "out.csv", {.environment = 2}, d);
  EXPECT_EQ(testing::read_text(dir / "out.csv"),
            "Validator,PT_VERSION,2.12.0\nGemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,B,0.4\n");
  EXPECT_THROW(convert_file(dir / "multi.db", dir / "x.csv", {.environment = 3}, d), InputError);

  // SQLite → SQLite keeps every environment.
  const auto report = convert_file(dir / "multi.db", dir / "copy.db", {}, d);
  EXPECT_EQ(report.tables, 2u);
  EXPECT_EQ(open_results_store(dir / "copy.db")->load().size(), 2u);
}

// Extra fields are bytes: a Latin-1 field (not UTF-8, which JSON strings require) survives
// CSV → SQLite → CSV byte for byte, beside UTF-8 and empty ones.
TEST(Convert, ExtraFieldsThatAreNotUtf8RoundTripByteExact) {
  testing::TempDir dir;
  const std::string text =
      "Validator,PT_VERSION,2.11.0\n"
      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,0.5,caf\xe9\n"
      "GemmTunableOp_Half_NN,nn_16_8_8_ld_16_8_16,Default,0.5,caf\xc3\xa9,,\xff\xfe{\"hex\"}\n";
  testing::write_text(dir / "latin1.csv", text);
  Diagnostics d;
  convert_file(dir / "latin1.csv", dir / "mid.db", {}, d);
  const auto tables = open_results_store(dir / "mid.db")->load();
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].entries.size(), 2u);
  EXPECT_EQ(tables[0].entries[0].extra, std::vector<std::string>{"caf\xe9"});
  convert_file(dir / "mid.db", dir / "out.csv", {}, d);
  EXPECT_TRUE(d.empty()) << d.format_all();
  EXPECT_EQ(testing::read_text(dir / "out.csv"), text);
}

// A misspelt source is bad input naming it; reading it creates nothing, neither the source (a
// SQLite store is created when opened) nor the target.
TEST(Convert, AMissingSourceIsAnInputErrorAndCreatesNothing) {
  testing::TempDir dir;
  Diagnostics d;
  for (const auto& [from, to] :
       {std::pair{"typo.db", "out.csv"}, std::pair{"missing.csv", "out.db"},
        std::pair{"typo.db", "out.db"}}) {
    try {
      convert_file(dir / from, dir / to, {}, d);
      FAIL() << "expected InputError for " << from;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(from) + ": no such file"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir / from)) << from;
    EXPECT_FALSE(std::filesystem::exists(dir / to)) << to;
  }
}

// The source is read in full before the target is opened: a source refused for a bad line
// leaves no empty database behind for a corrected rerun to be refused as replacing.
TEST(Convert, ASourceThatFailsToLoadLeavesNoTarget) {
  testing::TempDir dir;
  testing::write_text(dir / "bad.csv",
                      "Validator,PT_VERSION,2.11.0\n"
                      "GemmTunableOp_Half_NN,nn_8_8_8_ld_8_8_8,Default,1e999\n");
  Diagnostics strict(/*strict=*/true);
  EXPECT_THROW(convert_file(dir / "bad.csv", dir / "out.db", {}, strict), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out.db"));
  testing::write_text(dir / "notdb.db", "Validator,PT_VERSION,2.11.0\n");
  EXPECT_THROW(convert_file(dir / "notdb.db", dir / "out.db", {}, strict), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out.db"));
}

}  // namespace
}  // namespace gemmtune
