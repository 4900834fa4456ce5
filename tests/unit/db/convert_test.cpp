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

}  // namespace
}  // namespace gemmtune
