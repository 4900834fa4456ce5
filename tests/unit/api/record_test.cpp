// Record untuned: problems without a result are appended once each, across threads and across
// Contexts sharing the file; tuned problems are not recorded.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <thread>

#include "api/untuned_recorder.hpp"
#include "db/untuned_file.hpp"
#include "tests/unit/api/api_test_util.hpp"
#include "tuner/error.hpp"

namespace gemmtune::testing {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::vector<std::string> out;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// A line the disk did not take whole is not recorded: the part that was written is cut off, and a
// later record of the problem tries again (it had counted as recorded, and was never written).
// A file size limit (RLIMIT_FSIZE) a few bytes past the file's end stands in for a full disk.
TEST(Record, ALineTheDiskTookPartOfIsUndoneAndTriedAgain) {
  TempDir dir;
  const std::filesystem::path file = dir / "untuned.csv";
  const std::string before = "GemmTunableOp_float_NN,nn_4_4_4_ld_4_4_4\n";
  write_text(file, before);
  api::UntunedRecorder recorder;
  recorder.set_path(file.string());
  const Problem p =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);

  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &limit), 0);
  const rlimit saved = limit;
  limit.rlim_cur = before.size() + 5;
  const auto saved_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::vector<std::string> errors;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      recorder.record(p);
      errors.push_back("recorded");
    } catch (const InputError& e) {  // the file system's refusal: the user's to fix
      errors.push_back(e.what());
    }
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  for (const auto& error : errors) {
    EXPECT_NE(error.find(": cannot append to the untuned file: "), std::string::npos) << error;
  }
  EXPECT_NE(errors.front().find("5 of"), std::string::npos) << errors.front();
  EXPECT_EQ(read_text(file), before) << "half a line was left";
  EXPECT_TRUE(recorder.record(p)) << "not tried again once the disk takes it";
  EXPECT_EQ(lines_of(file).size(), 2u) << read_text(file);
}

TEST(Record, DedupesWithinAndAcrossContexts) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm tuned(32, 32, 32), a(16, 16, 16), b(24, 8, 16);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      tuned.problem.params_signature() + ",Test_Fast,0.01\n");
  Options o = test_options(dir, counts, log);
  o.record_untuned = true;
  {
    Context ctx(o);
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(a.run(ctx).ok);
      ASSERT_TRUE(tuned.run(ctx).ok);
    }
    ASSERT_TRUE(b.run(ctx).ok);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        std::vector<float> c(b.c.size());
        (void)ctx.gemm(b.problem, b.a.data(), b.b.data(), c.data());
      });
    }
    for (auto& t : threads) t.join();
  }
  {
    Context again(o);  // reads the untuned file: nothing recorded twice
    ASSERT_TRUE(a.run(again).ok);
    ASSERT_TRUE(b.run(again).ok);
  }
  const auto lines = lines_of(dir / "untuned.csv");
  ASSERT_EQ(lines.size(), 2u) << read_text(dir / "untuned.csv");
  EXPECT_EQ(lines[0], "GemmTunableOp_float_NN," + a.problem.params_signature());
  EXPECT_EQ(lines[1], "GemmTunableOp_float_NN," + b.problem.params_signature());
  // The file is what `gemmtune tune` reads.
  Diagnostics d(/*strict=*/true);
  EXPECT_EQ(read_untuned_file(dir / "untuned.csv", d).size(), 2u);
}

// An untuned file whose last line has no newline keeps that line: the recorded one starts anew.
// The untuned file named as the results file: an untuned line there is a bad line, and a file
// with bad lines is one write_file will not replace, so every later result would stay unwritten.
// Recording is refused, said once; the results file stays whole and writable.
TEST(Record, NotIntoTheResultsFile) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm tuned(32, 32, 32), a(16, 16, 16), b(24, 8, 16);
  const std::string results = validator_lines() + "GemmTunableOp_float_NN," +
                              tuned.problem.params_signature() + ",Test_Fast,0.01\n";
  write_text(dir / "results.csv", results);
  Options o = test_options(dir, counts, log);
  o.record_untuned = true;
  o.untuned_filename = o.filename;
  Context ctx(o);
  ASSERT_TRUE(a.run(ctx).ok);
  ASSERT_TRUE(b.run(ctx).ok);
  EXPECT_EQ(read_text(dir / "results.csv"), results);
  EXPECT_EQ(log.count_containing("is also the results file; GEMMs are not recorded into it"), 1u)
      << log.all();
  ctx.write_file();  // still takes the results
}

TEST(Record, AnUnfinishedLastLineIsNotGluedOnto) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm a(16, 16, 16), earlier(8, 16, 32);
  write_text(dir / "untuned.csv", "GemmTunableOp_float_NN," + earlier.problem.params_signature());
  Options o = test_options(dir, counts, log);
  o.record_untuned = true;
  {
    Context ctx(o);
    ASSERT_TRUE(a.run(ctx).ok);
  }
  const auto lines = lines_of(dir / "untuned.csv");
  ASSERT_EQ(lines.size(), 2u) << read_text(dir / "untuned.csv");
  EXPECT_EQ(lines[0], "GemmTunableOp_float_NN," + earlier.problem.params_signature());
  EXPECT_EQ(lines[1], "GemmTunableOp_float_NN," + a.problem.params_signature());
  Diagnostics d(/*strict=*/true);
  EXPECT_EQ(read_untuned_file(dir / "untuned.csv", d).size(), 2u);
}

TEST(Record, SwitchedOnFromCodeAndDisabledRecordsNothing) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm a(16, 16, 16), b(8, 8, 8);
  Context ctx(test_options(dir, counts, log));
  ASSERT_TRUE(a.run(ctx).ok);
  EXPECT_FALSE(std::filesystem::exists(dir / "untuned.csv"));
  ctx.record_untuned_enable();
  EXPECT_TRUE(ctx.record_untuned_is_enabled());
  ASSERT_TRUE(a.run(ctx).ok);  // seen before, not yet recorded: recorded now
  ctx.enable(false);
  ASSERT_TRUE(b.run(ctx).ok);  // disabled: nothing happens
  EXPECT_EQ(lines_of(dir / "untuned.csv").size(), 1u);
  ctx.enable(true);
  ctx.set_untuned_filename((dir / "other.csv").string());
  ASSERT_TRUE(a.run(ctx).ok);
  ASSERT_TRUE(b.run(ctx).ok);
  EXPECT_EQ(lines_of(dir / "other.csv").size(), 2u);
}

TEST(Record, FileNamesGetTheDeviceOrdinal) {
  TempDir dir;
  Counts counts;
  Log log;
  Options o = test_options(dir, counts, log);
  o.insert_device_ordinal = true;
  o.record_untuned = true;
  Context ctx(o);
  EXPECT_EQ(ctx.filename(), (dir / "results0.csv").string());
  EXPECT_EQ(ctx.untuned_filename(), (dir / "untuned0.csv").string());
  FloatGemm a(16, 16, 16);
  ASSERT_TRUE(a.run(ctx).ok);
  EXPECT_TRUE(std::filesystem::exists(dir / "untuned0.csv"));
}

}  // namespace
}  // namespace gemmtune::testing
