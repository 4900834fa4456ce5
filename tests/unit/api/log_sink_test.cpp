// Options::log is the application's code: it may call back into the Context that logs (a sink
// that saves the results on "tuned ..."), and the messages the Context logs while it holds its
// locks must neither deadlock such a sink nor be lost (api/deferred_log.hpp).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "api/deferred_log.hpp"
#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {
namespace {

// Runs `body` on its own thread. A deadlock there would hang the whole test binary (and ctest
// until its timeout); instead, the test fails and the binary ends at once.
void finishes_within(std::chrono::seconds limit, const std::function<void()>& body) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([body, done] {
    body();
    done->set_value();
  }).detach();
  if (finished.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "deadlock: the body did not finish within %lld s\n",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }
  finished.get();
}

TEST(LogSink, MayCallBackIntoTheContextThatLogs) {
  TempDir dir;
  Counts counts;
  Log log;
  Context* context = nullptr;  // set once constructed; the constructor's messages skip the calls
  int callbacks = 0;
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  o.verbose = true;  // "tuning ...", "tuned ...", "wrote ...": logged under the Context's locks
  o.log = [&, inner = log.sink()](std::string_view message) {
    inner(message);
    if (context == nullptr) return;
    ++callbacks;
    (void)context->results();
    (void)context->filename();
    (void)context->load_report();
    (void)context->max_tuning_duration();
    if (message.rfind("tuned ", 0) == 0) context->write_file((dir / "copy.csv").string());
  };
  Context ctx(o);
  context = &ctx;
  FloatGemm g(48, 40, 32);
  finishes_within(std::chrono::seconds(60), [&] { ASSERT_TRUE(g.run(ctx).ok); });

  // Tuned (which solution won is not this test's point: under AddressSanitizer the CPU Default
  // can be as fast as the test solution and keep its place).
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned) << log.all();
  // Every message logged under a lock still went out, by the time gemm() returned.
  EXPECT_EQ(log.count_containing("tuning GemmTunableOp_float_NN"), 1u) << log.all();
  EXPECT_EQ(log.count_containing("tuned GemmTunableOp_float_NN"), 1u) << log.all();
  EXPECT_EQ(log.count_containing("wrote 1 results to"), 1u) << log.all();
  EXPECT_GE(callbacks, 3);
  EXPECT_EQ(lines_containing(dir / "copy.csv", g.problem.params_signature()), 1u);
}

// A sink that answers "tuning X" by running X itself: the thread that logs it is the one tuning
// X, so waiting for that tuning would be waiting for itself. That call runs Default; the tuning
// goes on and ends.
TEST(LogSink, ASinkThatRunsTheProblemBeingTunedGetsDefault) {
  TempDir dir;
  Counts counts;
  Log log;
  Context* context = nullptr;
  FloatGemm g(48, 40, 32);
  FloatGemm inner(48, 40, 32);
  RunStatus inner_status = RunStatus::failure("not run");
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  o.verbose = true;
  o.log = [&, sink = log.sink()](std::string_view message) {
    sink(message);
    if (context != nullptr && message.rfind("tuning GemmTunableOp_float_NN", 0) == 0) {
      inner_status = inner.run(*context);
    }
  };
  Context ctx(o);
  context = &ctx;
  finishes_within(std::chrono::seconds(60), [&] { ASSERT_TRUE(g.run(ctx).ok); });
  EXPECT_TRUE(inner_status.ok) << inner_status.error;
  EXPECT_LT(inner.max_error(), 1e-4);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned) << log.all();
}

TEST(LogSink, AMessageLoggedUnderALockWaitsForTheLastLockToGo) {
  std::vector<std::string> sent;
  const api::LogEmitter emit = [&](std::string_view m) { sent.emplace_back(m); };
  std::mutex outer_mutex, inner_mutex;
  {
    const api::ContextLock outer(outer_mutex);
    api::log_when_unlocked(emit, "first");
    {
      const api::ContextLock inner(inner_mutex);
      api::log_when_unlocked(emit, "second");
    }
    EXPECT_TRUE(sent.empty()) << "sent while a lock is still held";
    // The thread let go of the inner lock: a sink called now could take it.
    EXPECT_TRUE(inner_mutex.try_lock());
    inner_mutex.unlock();
  }
  EXPECT_EQ(sent, (std::vector<std::string>{"first", "second"}));
  api::log_when_unlocked(emit, "third");  // no lock held: at once
  EXPECT_EQ(sent.size(), 3u);
}

TEST(LogSink, ASinkThatLogsUnderALockAgainIsHeardToo) {
  std::vector<std::string> sent;
  std::mutex mutex;
  api::LogEmitter emit;
  emit = [&](std::string_view m) {
    sent.emplace_back(m);
    // What a sink calling back into the Context does: the Context takes a lock and logs.
    if (m == "outer") {
      const api::ContextLock again(mutex);
      api::log_when_unlocked(emit, "from the sink");
    }
  };
  {
    const api::ContextLock lock(mutex);
    api::log_when_unlocked(emit, "outer");
  }
  EXPECT_EQ(sent, (std::vector<std::string>{"outer", "from the sink"}));
}

TEST(LogSink, OtherThreadsAreNotHeldBack) {
  std::mutex mutex, sent_mutex;
  std::vector<std::string> sent;
  const api::LogEmitter emit = [&](std::string_view m) {
    const std::lock_guard lock(sent_mutex);
    sent.emplace_back(m);
  };
  const api::ContextLock lock(mutex);
  std::thread([&] { api::log_when_unlocked(emit, "elsewhere"); }).join();
  const std::lock_guard check(sent_mutex);
  EXPECT_EQ(sent, (std::vector<std::string>{"elsewhere"}));
}

}  // namespace
}  // namespace gemmtune::testing
