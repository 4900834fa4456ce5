// Convert: CSV → SQLite → CSV gives the same bytes; several environments do not fit one CSV
// file unless one is selected; a database that is converted into is replaced whole.
#include "db/convert.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/csv_results.hpp"
#include "db/sqlite_handle.hpp"
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

// Without `replace` (db convert without --force) the target is created, never replaced: the CLI's
// check that nothing is there comes before the source is read, and a file another program makes
// meanwhile (a `tune -o` into that name) must not be lost. Both kinds; SQLite's side files of a
// database that is gone are refused too, rather than read into the new database or removed.
TEST(Convert, WithoutReplaceATargetThereIsRefusedAndKept) {
  testing::TempDir dir;
  const auto source = testing::fixture("mistral_bf16_results.csv");
  Diagnostics d;
  const ConvertOptions keep{.environment = std::nullopt, .replace = false};
  for (const char* name : {"made_meanwhile.csv", "made_meanwhile.db"}) {
    testing::write_text(dir / name, "Validator,PT_VERSION,2.12.0\n");
    try {
      convert_file(source, dir / name, keep, d);
      FAIL() << name << " was replaced";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(name) + " exists"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(testing::read_text(dir / name), "Validator,PT_VERSION,2.12.0\n");
  }
  testing::write_text(dir / "gone.db-wal", "a writer's last commits");
  EXPECT_THROW(convert_file(source, dir / "gone.db", keep, d), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "gone.db"));
  EXPECT_EQ(testing::read_text(dir / "gone.db-wal"), "a writer's last commits");
  // Where nothing is, both are written as with `replace`, and nothing temporary stays.
  EXPECT_EQ(convert_file(source, dir / "new.csv", keep, d).entries, 34u);
  EXPECT_EQ(testing::read_text(dir / "new.csv"), testing::read_text(source));
  EXPECT_EQ(convert_file(dir / "new.csv", dir / "new.db", keep, d).entries, 34u);
  EXPECT_EQ(convert_file(dir / "new.db", dir / "back.csv", keep, d).entries, 34u);
  EXPECT_EQ(testing::read_text(dir / "back.csv"), testing::read_text(source));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path()))
    ++files;
  EXPECT_EQ(files, 6u);  // 2 refused targets, gone.db-wal, new.csv, new.db, back.csv
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

std::int64_t count_rows(const std::filesystem::path& db, std::string_view table) {
  SqliteDatabase read(db, SqliteDatabase::Access::ReadOnly);
  SqliteStatement s(read, fmt::format("SELECT count(*) FROM {}", table));
  s.step();
  return s.column_int64(0);
}

// A database holding what a conversion must not keep: another environment, a result of the
// source's environment that the source lacks, candidates' measurements and a run.
void fill_old_database(const std::filesystem::path& path) {
  auto old = open_results_store(path);
  CandidateReport candidate;
  candidate.solution = "Old";
  candidate.disposition = Disposition::Winner;
  old->append(Environment{{"PT_VERSION", "2.10.0"}},
              {"GemmTunableOp_Half_NN", "nn_8_8_8_ld_8_8_8", "Old", 0.1, {}},
              std::span(&candidate, 1));
  old->append(Environment{{"PT_VERSION", "2.11.0"}},
              {"GemmTunableOp_Half_NN", "nn_32_32_32_ld_32_32_32", "Old", 0.2, {}});
  RunRecord run;
  run.command_line = "gemmtune tune";
  run.status = "ok";
  old->record_run(run);
}

const std::string kSource =
    "Validator,PT_VERSION,2.11.0\n"
    "GemmTunableOp_Half_NN,nn_16_16_16_ld_16_16_16,Default,0.25\n";

// Converting into an existing database (`db convert --force`) replaces it with exactly the
// converted content, as it replaces a CSV file: no environment, result, measurement or run of the
// old database survives beside the source's.
TEST(Convert, IntoAnExistingDatabaseReplacesItWhole) {
  testing::TempDir dir;
  fill_old_database(dir / "out.db");
  testing::write_text(dir / "in.csv", kSource);
  Diagnostics d;
  convert_file(dir / "in.csv", dir / "out.db", {}, d);
  const auto tables = open_results_store(dir / "out.db")->load();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].environment, (Environment{{"PT_VERSION", "2.11.0"}}));
  ASSERT_EQ(tables[0].entries.size(), 1u);
  EXPECT_EQ(tables[0].entries[0].params_signature, "nn_16_16_16_ld_16_16_16");
  EXPECT_EQ(count_rows(dir / "out.db", "measurements"), 0);
  EXPECT_EQ(count_rows(dir / "out.db", "runs"), 0);
  EXPECT_EQ(count_rows(dir / "out.db", "environment_validators"), 1);
  convert_file(dir / "out.db", dir / "back.csv", {}, d);
  EXPECT_EQ(testing::read_text(dir / "back.csv"), kSource);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos)
        << "left behind: " << entry.path();
  }
}

// What is replaced need not be a gemmtune database, nor a database at all.
TEST(Convert, IntoAFileThatIsNoGemmtuneDatabaseReplacesIt) {
  testing::TempDir dir;
  testing::write_text(dir / "in.csv", kSource);
  testing::write_text(dir / "text.db", "not a database\n");
  SqliteDatabase(dir / "other.db").exec("CREATE TABLE notes(text)");
  Diagnostics d;
  for (const char* name : {"text.db", "other.db"}) {
    convert_file(dir / "in.csv", dir / name, {}, d);
    convert_file(dir / name, dir / "back.csv", {}, d);
    EXPECT_EQ(testing::read_text(dir / "back.csv"), kSource) << name;
  }
}

// A database left by a writer that was killed keeps its last commits in its -wal file. That file
// belongs to the old database: SQLite would read it into the new one of the same name.
TEST(Convert, IntoADatabaseWithAWalFileLeftBehindIgnoresIt) {
  testing::TempDir dir;
  const auto out = dir / "out.db";
  open_results_store(out);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    fill_old_database(out);
    auto killed = open_results_store(out);  // a writer that never closes its connection
    killed->append(Environment{{"PT_VERSION", "2.11.0"}},
                   {"GemmTunableOp_Half_NN", "nn_64_64_64_ld_64_64_64", "Old", 0.3, {}});
    ::_exit(0);  // no destructors: the commits stay in out.db-wal
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(std::filesystem::exists(dir / "out.db-wal"));
  testing::write_text(dir / "in.csv", kSource);
  Diagnostics d;
  convert_file(dir / "in.csv", out, {}, d);
  convert_file(out, dir / "back.csv", {}, d);
  EXPECT_EQ(testing::read_text(dir / "back.csv"), kSource);
  EXPECT_EQ(count_rows(out, "runs"), 0);
}

}  // namespace
}  // namespace gemmtune
