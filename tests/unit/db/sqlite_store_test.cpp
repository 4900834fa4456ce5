// SQLite store: schema, environments with ordered validators, durable appends (visible after
// reopening), candidates in the measurements table, runs, write replacing one environment.
#include "db/sqlite_store.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>

#include "db/sqlite_handle.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

const Environment kEnvA{{"PT_VERSION", "2.11.0"}, {"CUBLASLT_VERSION", "130100"}};
const Environment kEnvB{{"PT_VERSION", "2.12.0"}};

ResultEntry entry(std::string params, std::string solution, double time) {
  return ResultEntry{"GemmTunableOp_Half_NN", std::move(params), std::move(solution), time, {}};
}

std::int64_t count(SqliteDatabase& db, std::string_view table) {
  SqliteStatement s(db, fmt::format("SELECT count(*) FROM {}", table));
  s.step();
  return s.column_int64(0);
}

TEST(SqliteStore, CreatesSchemaWithVersionAndWal) {
  testing::TempDir dir;
  make_sqlite_store(dir / "r.db");
  SqliteDatabase db(dir / "r.db");
  SqliteStatement version(db, "PRAGMA user_version");
  ASSERT_TRUE(version.step());
  EXPECT_EQ(version.column_int64(0), kSqliteSchemaVersion);
  SqliteStatement mode(db, "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");
  for (auto table : {"environments", "environment_validators", "results", "measurements", "runs"}) {
    EXPECT_EQ(count(db, table), 0) << table;
  }
}

// A database put in place of the one being written (db convert --force renames a new file over
// it) gets the later appends: they went into the replaced file and were lost with it.
TEST(SqliteStore, AppendsGoToTheDatabaseThePathNamesNow) {
  testing::TempDir dir;
  auto writer = make_sqlite_store(dir / "r.db");
  writer->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5), {});
  {
    auto other = make_sqlite_store(dir / "new.db");
    other->append(kEnvB, entry("nn_16_16_16_ld_16_16_16", "Default", 0.25), {});
  }
  std::filesystem::rename(dir / "new.db", dir / "r.db");  // as db convert --force replaces it
  std::filesystem::remove(dir / "r.db-wal");
  std::filesystem::remove(dir / "r.db-shm");
  writer->append(kEnvA, entry("nn_24_24_24_ld_24_24_24", "Default", 0.125), {});
  writer.reset();
  Diagnostics d;
  const auto tables = open_results_store(dir / "r.db")->load(d);
  ASSERT_EQ(tables.size(), 2u);
  std::size_t entries = 0;
  for (const auto& t : tables) entries += t.entries.size();
  EXPECT_EQ(entries, 2u);  // the new file's own, and the append made after the rename
  bool found = false;
  for (const auto& t : tables) {
    for (const auto& e : t.entries)
      found = found || e.params_signature == "nn_24_24_24_ld_24_24_24";
  }
  EXPECT_TRUE(found);
}

// A newer gemmtune's database, and another program's with a schema version above ours, are bad
// input (exit 3), each said as what it is; it had been an internal error.
TEST(SqliteStore, RefusesANewerSchema) {
  testing::TempDir dir;
  {
    SqliteDatabase db(dir / "r.db");
    db.exec("CREATE TABLE results(x INTEGER); PRAGMA user_version = 99");
    SqliteDatabase other(dir / "other.db");
    other.exec("CREATE TABLE foo(x INTEGER); PRAGMA user_version = 2");
  }
  try {
    make_sqlite_store(dir / "r.db");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99 is newer"), std::string::npos)
        << e.what();
  }
  try {
    make_sqlite_store(dir / "other.db");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("other.db: not a gemmtune database (schema version 2"),
              std::string::npos)
        << e.what();
  }
}

// Another program's database is refused as bad input and left exactly as it was.
TEST(SqliteStore, RefusesAnotherProgramsDatabaseAndLeavesItAlone) {
  testing::TempDir dir;
  {
    SqliteDatabase db(dir / "other.db");
    db.exec("CREATE TABLE results(x INTEGER); CREATE TABLE notes(y TEXT)");
  }
  try {
    make_sqlite_store(dir / "other.db");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "other.db: not a gemmtune database (it holds the tables notes, results"),
              std::string::npos)
        << e.what();
  }
  SqliteDatabase db(dir / "other.db");
  SqliteStatement version(db, "PRAGMA user_version");
  ASSERT_TRUE(version.step());
  EXPECT_EQ(version.column_int64(0), 0);
  SqliteStatement tables(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  ASSERT_TRUE(tables.step());
  EXPECT_EQ(tables.column_int64(0), 2);
}

TEST(SqliteStore, AppendIsDurableAndRecordsEveryCandidate) {
  testing::TempDir dir;
  const auto path = dir / "r.sqlite";
  std::vector<CandidateReport> candidates{
      {"Default", Disposition::Winner, "", {50, 0.5, 0.51, 0.49, 0.6, 0.01}, 123.0},
      {"Gemm_Cublaslt_id_1", Disposition::Slower, "", {50, 0.7, 0.7, 0.69, 0.72, 0.01}, 88.0},
      {"Mine", Disposition::Incorrect, "max error 3.5 exceeds 0.01", {}, 0.0},
  };
  {
    auto store = make_sqlite_store(path);
    store->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5), candidates);
  }  // closed: what follows sees only what reached the file
  auto store = make_sqlite_store(path);
  const auto tables = store->load();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].environment, kEnvA);
  ASSERT_EQ(tables[0].entries.size(), 1u);
  EXPECT_EQ(tables[0].entries[0], entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));

  SqliteDatabase db(path);
  SqliteStatement m(db,
                    "SELECT solution, disposition, reason, iterations, median_ms, tflops, "
                    "op_signature, params_signature FROM measurements ORDER BY id");
  std::vector<std::string> seen;
  while (m.step())
    seen.push_back(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", m.column_text(0), m.column_text(1),
                               m.column_text(2), m.column_int64(3), m.column_double(4),
                               m.column_double(5), m.column_text(6), m.column_text(7)));
  EXPECT_EQ(seen,
            (std::vector<std::string>{
                "Default|winner||50|0.5|123|GemmTunableOp_Half_NN|nn_8_8_8_ld_8_8_8",
                "Gemm_Cublaslt_id_1|slower||50|0.7|88|GemmTunableOp_Half_NN|nn_8_8_8_ld_8_8_8",
                "Mine|incorrect|max error 3.5 exceeds 0.01|0|0|0|GemmTunableOp_Half_NN|"
                "nn_8_8_8_ld_8_8_8"}));
}

TEST(SqliteStore, AppendUpsertsTheWinnerAndKeepsItsPlace) {
  testing::TempDir dir;
  auto store = make_sqlite_store(dir / "r.db");
  store->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5));
  store->append(kEnvA, entry("nn_16_16_16_ld_16_16_16", "Default", 0.6));
  store->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Faster", 0.4));
  const auto tables = store->load();
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].entries.size(), 2u);
  EXPECT_EQ(tables[0].entries[0].solution, "Faster");
  EXPECT_EQ(tables[0].entries[1].params_signature, "nn_16_16_16_ld_16_16_16");
}

TEST(SqliteStore, OneTablePerEnvironmentWithValidatorOrderAndExtras) {
  testing::TempDir dir;
  auto store = make_sqlite_store(dir / "r.db");
  ResultsTable a{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "Default", 0.5)}, {}};
  a.entries[0].extra = {"x", "", "y,z"};
  ResultsTable b{kEnvB, {entry("nn_8_8_8_ld_8_8_8", "Other", 0.3)}, {}};
  store->write(a);
  store->write(b);
  store->append(kEnvB, entry("nn_16_16_16_ld_16_16_16", "Default", 0.7));
  auto tables = store->load();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].environment.entries(), kEnvA.entries());  // same order
  EXPECT_EQ(tables[0].entries, a.entries);
  EXPECT_EQ(tables[1].environment, kEnvB);
  EXPECT_EQ(tables[1].entries.size(), 2u);

  // Writing an environment replaces only its own results; key order does not make a new one.
  ResultsTable a2{Environment{{"CUBLASLT_VERSION", "130100"}, {"PT_VERSION", "2.11.0"}},
                  {entry("nn_32_32_32_ld_32_32_32", "Default", 0.9)},
                  {}};
  store->write(a2);
  tables = store->load();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].environment.entries(), kEnvA.entries());
  EXPECT_EQ(tables[0].entries, a2.entries);
  EXPECT_EQ(tables[1].entries.size(), 2u);
}

TEST(SqliteStore, RecordsRuns) {
  testing::TempDir dir;
  auto store = make_sqlite_store(dir / "r.db");
  store->record_run({"gemmtune tune x.csv", "--iterations 100",
                     std::chrono::system_clock::time_point{},
                     std::chrono::system_clock::time_point{} + std::chrono::seconds(61), "ok"});
  SqliteDatabase db(dir / "r.db");
  SqliteStatement s(db, "SELECT command_line, options, started_at, ended_at, status FROM runs");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), "gemmtune tune x.csv");
  EXPECT_EQ(s.column_text(1), "--iterations 100");
  EXPECT_EQ(s.column_text(2), "1970-01-01T00:00:00Z");
  EXPECT_EQ(s.column_text(3), "1970-01-01T00:01:01Z");
  EXPECT_EQ(s.column_text(4), "ok");
}

TEST(SqliteStore, SeveralProcessesAppendToOneDatabase) {
  // WAL, IMMEDIATE transactions and the busy timeout let writers queue instead of failing.
  testing::TempDir dir;
  const auto path = dir / "shared.db";
  make_sqlite_store(path);
  constexpr int kProcesses = 3, kEach = 20;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        auto store = make_sqlite_store(path);
        for (int i = 0; i < kEach; ++i) {
          const auto n = 8 * (p * kEach + i + 1);
          store->append(kEnvA, entry(fmt::format("nn_{}_8_8_ld_{}_8_{}", n, n, n), "Default", 0.1),
                        std::vector<CandidateReport>{{"Default", Disposition::Winner, "", {}, 0}});
        }
      } catch (...) {
        status = 1;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto tables = make_sqlite_store(path)->load();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].entries.size(), static_cast<std::size_t>(kProcesses * kEach));
  SqliteDatabase db(path);
  EXPECT_EQ(count(db, "measurements"), kProcesses * kEach);
}

// Each connection to a new database switches it to WAL, which takes the file's exclusive lock;
// SQLite answers a connection that would wait for it behind another SQLITE_BUSY at once, without
// the busy timeout. Processes opening one new database together (tune runs or workers starting on
// one new -o file) must all get it, not fail as "locked".
TEST(SqliteHandle, ProcessesOpeningOneNewDatabaseTogetherAllOpenIt) {
  testing::TempDir dir;
  constexpr int kRounds = 40, kProcesses = 6;
  int failures = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto path = dir / fmt::format("new{}.db", round);
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(go[1]);
        char byte;
        (void)::read(go[0], &byte, 1);  // returns when the parent closes its end: all start
        try {
          SqliteDatabase db(path);
          ::_exit(db.journal_mode() == "wal" ? 0 : 1);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "%s\n", e.what());
          ::_exit(1);
        }
      }
      children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    for (const pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
    }
  }
  EXPECT_EQ(failures, 0);
}

// update() reads and writes in one write transaction: a result another process appends while
// the producer runs waits for the commit, and is not deleted by the write that replaces the
// environment's results.
TEST(SqliteStore, UpdateReadsAndWritesInOneTransaction) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "X", 0.5)}, {}});
  std::future<void> appending;
  Diagnostics diagnostics;
  make_sqlite_store(path)->update(
      diagnostics, [&](std::vector<ResultsTable> current, const Diagnostics&) {
        appending = std::async(std::launch::async, [&] {
          make_sqlite_store(path)->append(kEnvA, entry("nn_16_16_16_ld_16_16_16", "Y", 0.25));
        });
        appending.wait_for(std::chrono::milliseconds(300));
        EXPECT_EQ(current.size(), 1u);
        current.at(0).upsert(entry("nn_24_24_24_ld_24_24_24", "Z", 0.75));
        return std::optional(std::move(current.at(0)));
      });
  appending.get();
  const auto tables = make_sqlite_store(path)->load();
  ASSERT_EQ(tables.size(), 1u);
  std::vector<std::string> solutions;
  for (const auto& e : tables[0].entries) solutions.push_back(e.solution);
  EXPECT_EQ(solutions, (std::vector<std::string>{"X", "Z", "Y"}));
}

// Opening an existing database only reads it until the first write: the file is not changed,
// not even its journal mode, and no write lock is taken (a writer holding one does not block a
// reader); the first write still works, on a connection that writes.
TEST(SqliteStore, ReadingChangesNothingAndTakesNoWriteLock) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  SqliteDatabase(path).exec("PRAGMA journal_mode=DELETE");  // as another program may leave it
  const std::string before = testing::read_text(path);
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 1u);
  EXPECT_EQ(testing::read_text(path), before);
  {
    SqliteDatabase writer(path);  // WAL again, so that a reader and a writer may overlap
    SqliteTransaction holding(writer);
    const auto started = std::chrono::steady_clock::now();
    auto reader = make_sqlite_store(path);
    EXPECT_EQ(reader->load().at(0).entries.size(), 1u);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  }
  auto store = make_sqlite_store(path);
  store->append(kEnvA, entry("nn_16_8_8_ld_16_8_16", "B", 0.25));
  EXPECT_EQ(store->load().at(0).entries.size(), 2u);
}

// A reader of a WAL database opens its -wal and -shm files; `db show` must not leave them behind
// (only a connection that may write removes them, as the last one closes), nor take them from
// under a writer that is still open.
TEST(SqliteStore, AReaderLeavesNoFilesBesideTheDatabase) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  const auto beside = [&](const char* suffix) {
    return std::filesystem::exists(path.string() + suffix);
  };
  ASSERT_FALSE(beside("-wal"));
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 1u);
  EXPECT_FALSE(beside("-wal"));
  EXPECT_FALSE(beside("-shm"));
  {
    auto writer = make_sqlite_store(path);
    writer->append(kEnvA, entry("nn_16_8_8_ld_16_8_16", "B", 0.25));
    EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 2u);
    EXPECT_TRUE(beside("-wal"));  // the writer's, still open
    writer->append(kEnvA, entry("nn_24_8_8_ld_24_8_24", "C", 0.25));
  }
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 3u);
  EXPECT_FALSE(beside("-wal"));

  // Made read-only with chmod: read as it is, with nothing created beside it (a -shm file left
  // there would stop the owner's next write once the file is writable again).
  using std::filesystem::perms;
  std::filesystem::permissions(path, perms::owner_read | perms::group_read);
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 3u);
  EXPECT_FALSE(beside("-wal"));
  EXPECT_FALSE(beside("-shm"));
  std::filesystem::permissions(path, perms::owner_read | perms::owner_write);
  make_sqlite_store(path)->append(kEnvA, entry("nn_32_8_8_ld_32_8_32", "D", 0.25));
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 4u);
}

// A database in a read-only file and directory can be read (only where permissions hold: root
// writes anyway).
TEST(SqliteStore, ReadsADatabaseInAReadOnlyDirectory) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
  testing::TempDir dir;
  const auto ro = dir / "ro";
  std::filesystem::create_directory(ro);
  make_sqlite_store(ro / "r.db")
      ->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  using std::filesystem::perms;
  std::filesystem::permissions(ro / "r.db", perms::owner_read | perms::group_read);
  std::filesystem::permissions(ro, perms::owner_read | perms::owner_exec);
  std::vector<ResultsTable> tables;
  EXPECT_NO_THROW(tables = make_sqlite_store(ro / "r.db")->load());
  std::filesystem::permissions(ro, perms::owner_all);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].entries.size(), 1u);
}

// update_environments writes every table it is given, each into its environment, in one
// transaction (a merge of several environments' files into a database).
TEST(SqliteStore, UpdateEnvironmentsWritesEveryTable) {
  testing::TempDir dir;
  const auto path = dir / "u.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  Diagnostics diagnostics;
  const auto two_tables = [](std::vector<ResultsTable> current, const Diagnostics&) {
    EXPECT_EQ(current.size(), 1u);
    current.at(0).upsert(entry("nn_16_8_8_ld_16_8_16", "A2", 0.5));
    return std::vector<ResultsTable>{current.at(0),
                                     ResultsTable{kEnvB, {entry("nn_8_8_8_ld_8_8_8", "B", 1)}, {}}};
  };
  make_sqlite_store(path)->update_environments(diagnostics, two_tables);
  const auto tables = make_sqlite_store(path)->load();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].entries.size(), 2u);
  EXPECT_EQ(tables[1].entries.size(), 1u);
}

// A database made read-only with chmod, left by a writer killed with its -wal file full, is read
// and left exactly as it was, by root too (whom access(2) lets write anything): the reader must not
// fold the -wal into the file nor remove it.
TEST(SqliteStore, AReadOnlyDatabaseIsReadAndLeftAsItWasByAnyone) {
  testing::TempDir dir;
  const auto ro = dir / "ro";
  std::filesystem::create_directory(ro);
  const auto path = ro / "r.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {  // commits, then dies without closing: -wal and -shm stay
    auto store = make_sqlite_store(path);
    store->append(kEnvA, entry("nn_16_8_8_ld_16_8_16", "B", 0.25));
    ::_exit(0);
  }
  ASSERT_EQ(::waitpid(writer, nullptr, 0), writer);
  ASSERT_TRUE(std::filesystem::exists(path.string() + "-wal"));
  using std::filesystem::perms;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::permissions(path.string() + suffix, perms::owner_read | perms::group_read);
  }
  std::filesystem::permissions(ro, perms::owner_read | perms::owner_exec);
  const std::string before = testing::read_text(path);
  const std::string wal_before = testing::read_text(path.string() + "-wal");
  std::vector<ResultsTable> tables;
  EXPECT_NO_THROW(tables = make_sqlite_store(path)->load());
  EXPECT_EQ(testing::read_text(path), before);
  EXPECT_TRUE(std::filesystem::exists(path.string() + "-wal"));
  EXPECT_EQ(testing::read_text(path.string() + "-wal"), wal_before);
  std::filesystem::permissions(ro, perms::owner_all);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].entries.size(), 2u);  // the commit in the -wal is read
}

// Root writes a file made read-only too: a store root opened on one (a tune run checking whether
// another has saved a problem) must see the other writer's commits, not a frozen snapshot.
TEST(SqliteStore, AStoreOnAReadOnlyFileSeesWhatRootWritesToIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root writes a file without write bits";
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->write(ResultsTable{kEnvA, {entry("nn_8_8_8_ld_8_8_8", "A", 0.5)}, {}});
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::group_read |
                                         std::filesystem::perms::others_read);
  auto reader = make_sqlite_store(path);
  EXPECT_FALSE(reader->holds(kEnvA, "GemmTunableOp_Half_NN", "nn_16_8_8_ld_16_8_16"));
  auto writer = make_sqlite_store(path);
  writer->append(kEnvA, entry("nn_16_8_8_ld_16_8_16", "B", 0.25));
  EXPECT_TRUE(reader->holds(kEnvA, "GemmTunableOp_Half_NN", "nn_16_8_8_ld_16_8_16"));
  EXPECT_EQ(reader->load().at(0).entries.size(), 2u);
}

// A file that is no database (a CSV file named .db) is bad input naming it.
TEST(SqliteStore, AFileThatIsNotADatabaseIsBadInput) {
  testing::TempDir dir;
  testing::write_text(dir / "notdb.db", "Validator,PT_VERSION,2.11.0\n");
  try {
    make_sqlite_store(dir / "notdb.db");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("notdb.db: not a SQLite database"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(testing::read_text(dir / "notdb.db"), "Validator,PT_VERSION,2.11.0\n");
}

// Makes SQLite open files through another of its VFSs for as long as it lives.
class DefaultVfs {
 public:
  explicit DefaultVfs(const char* name) : normal_(sqlite3_vfs_find(nullptr)) {
    sqlite3_vfs* vfs = sqlite3_vfs_find(name);
    EXPECT_NE(vfs, nullptr) << name;
    if (vfs != nullptr) {
      EXPECT_EQ(sqlite3_vfs_register(vfs, /*makeDflt=*/1), SQLITE_OK);
    }
  }
  DefaultVfs(const DefaultVfs&) = delete;
  DefaultVfs& operator=(const DefaultVfs&) = delete;
  ~DefaultVfs() { sqlite3_vfs_register(normal_, /*makeDflt=*/1); }

 private:
  sqlite3_vfs* normal_;
};

// Where SQLite cannot use WAL ("unix-dotfile" has no shared memory, like some network file
// systems), PRAGMA journal_mode=WAL answers with the rollback journal it keeps instead of failing.
// That journal is as safe: the database is written and read as usual, and says which mode it is in.
TEST(SqliteStore, WhereWalIsNotAvailableKeepsTheRollbackJournal) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  {
    const DefaultVfs no_shared_memory("unix-dotfile");
    auto store = make_sqlite_store(path);
    store->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "A", 0.5));
    EXPECT_EQ(SqliteDatabase(path).journal_mode(), "delete");
    EXPECT_EQ(store->load().at(0).entries.size(), 1u);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "r.db-wal"));
  EXPECT_EQ(SqliteDatabase(path, SqliteDatabase::Access::ReadOnly).journal_mode(), "delete");
  EXPECT_EQ(SqliteDatabase(path).journal_mode(), "wal");  // where it can, the first writer switches
  EXPECT_EQ(make_sqlite_store(path)->load().at(0).entries.size(), 1u);
}

TEST(SqliteStore, ADatabaseMissingOneOfItsTablesIsRefusedWhenOpened) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5), {});
  SqliteDatabase(path).exec("DROP TABLE measurements");
  try {
    make_sqlite_store(path);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("without its table(s) measurements"), std::string::npos)
        << e.what();
  }
}

TEST(SqliteStore, ADamagedDatabaseIsRefusedBeforeAnythingIsReadFromIt) {
  testing::TempDir dir;
  const auto path = dir / "r.db";
  make_sqlite_store(path)->append(kEnvA, entry("nn_8_8_8_ld_8_8_8", "Default", 0.5), {});
  // Closed: the last connection checkpointed the WAL into the file. Zero its third page, a
  // table's root (the schema alone takes eight pages of 4 KiB).
  ASSERT_GE(std::filesystem::file_size(path), 3u * 4096);
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(2 * 4096);
    const std::string zeros(4096, '\0');
    file.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  try {
    make_sqlite_store(path)->load();
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the database file is damaged"), std::string::npos)
        << e.what();
  }
}

TEST(SqliteHandle, FailuresOfTheFileAreBadInputNamingIt) {
  testing::TempDir dir;
  SqliteDatabase db(dir / "h.db");
  for (int rc : {SQLITE_BUSY, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_IOERR_WRITE, SQLITE_READONLY}) {
    try {
      throw_sqlite_failure(rc, db.get(), "a call failed", __FILE__, __LINE__);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("h.db"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(throw_sqlite_failure(SQLITE_MISUSE, db.get(), "a call failed", __FILE__, __LINE__),
               Error);
}

TEST(SqliteHandle, ErrorsNameTheCallAndSqliteMessage) {
  testing::TempDir dir;
  SqliteDatabase db(dir / "h.db");
  try {
    SqliteStatement(db, "SELECT * FROM no_such_table");
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("sqlite3_prepare_v2(\"SELECT * FROM no_such_table\")"),
              std::string::npos);
    EXPECT_NE(e.message().find("no such table: no_such_table"), std::string::npos) << e.what();
  }
  // A path that cannot be opened is the user's to fix: bad input naming it.
  EXPECT_THROW(SqliteDatabase(dir / "missing-dir" / "x.db"), InputError);
}

TEST(SqliteHandle, TransactionRollsBackUnlessCommitted) {
  testing::TempDir dir;
  SqliteDatabase db(dir / "t.db");
  db.exec("CREATE TABLE t(x INTEGER)");
  {
    SqliteTransaction t(db);
    db.exec("INSERT INTO t VALUES(1)");
  }
  EXPECT_EQ(count(db, "t"), 0);
  {
    SqliteTransaction t(db);
    db.exec("INSERT INTO t VALUES(1)");
    t.commit();
  }
  EXPECT_EQ(count(db, "t"), 1);
}

}  // namespace
}  // namespace gemmtune
