// Races of the slow path and the results file, made deterministic: each test stops one thread at
// the exact point where another must overtake it, through two seams of this binary only:
//
// - operator new: a thread that arms `t_pause_at_next_allocation` stops at its next heap
//   allocation. On the slow path of a problem another thread is tuning, the first allocation is
//   tune_once's promise: after slow_path's check (writer lock released), before tune_once looks
//   for a tuning in flight.
// - rename(2): write_file replaces the results file with a rename; an armed hook stops the
//   rename of the armed file name, after write_file took its snapshot.
//
// Every wait has a timeout, so a seam that no longer fires where it should fails the test instead
// of hanging it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <new>
#include <thread>

#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {

// Opened once; waiters wake and pass. Neither wait nor open allocates (operator new below).
class Gate {
 public:
  void open() {
    {
      const std::lock_guard lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct Pause {
  Gate reached;  // the paused thread is there
  Gate resume;   // let it go on
  void at_point() {
    reached.open();
    (void)resume.wait();
  }
};

thread_local Pause* t_pause_at_next_allocation = nullptr;

std::atomic<Pause*> g_pause_rename{nullptr};
const char* g_pause_rename_target = nullptr;  // set before g_pause_rename

}  // namespace gemmtune::testing

// GCC takes free() of what the replaced operator new returned for a mismatch; it is not one.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t bytes) {
  using gemmtune::testing::t_pause_at_next_allocation;
  if (auto* pause = t_pause_at_next_allocation) {
    t_pause_at_next_allocation = nullptr;
    pause->at_point();
  }
  if (void* p = std::malloc(bytes != 0 ? bytes : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

extern "C" int rename(const char* from, const char* to) noexcept {
  using namespace gemmtune::testing;
  if (Pause* pause = g_pause_rename.load()) {
    if (std::string_view(to).ends_with(g_pause_rename_target) &&
        g_pause_rename.compare_exchange_strong(pause, nullptr)) {
      pause->at_point();
    }
  }
  return ::renameat(AT_FDCWD, from, AT_FDCWD, to);
}

namespace gemmtune::testing {
namespace {

// The "test" provider, whose first enumeration (the first tuning's) waits to be let go.
class HeldProvider final : public SolutionProvider {
 public:
  explicit HeldProvider(Counts& counts) : inner_(counts) {}
  std::string_view name() const override { return "test"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions& search) override {
    if (!first_.exchange(true)) tuning.at_point();
    return inner_.enumerate(p, search);
  }
  std::unique_ptr<Solution> from_name(const Problem& p, std::string_view name) override {
    return inner_.from_name(p, name);
  }

  Pause tuning;

 private:
  TestProvider inner_;
  std::atomic<bool> first_{false};
};

TEST(Races, ACallerArrivingAsATuningEndsDoesNotTuneTheProblemAgain) {
  TempDir dir;
  Counts counts;
  Log log;
  auto held = std::make_shared<HeldProvider>(counts);
  Options o = test_options(dir, counts, log);
  o.providers.back() = held;
  o.tuning = true;
  Context ctx(o);
  FloatGemm g(24, 24, 24);
  Pause second_between_check_and_tune;

  std::thread first([&] {
    std::vector<float> c(g.c.size());
    (void)ctx.gemm(g.problem, g.a.data(), g.b.data(), c.data());
  });
  // The first caller is tuning: its untuned entry is in the table, not yet replaced.
  const bool first_tuning = held->tuning.reached.wait();
  std::thread second([&] {
    std::vector<float> c(g.c.size());
    t_pause_at_next_allocation = &second_between_check_and_tune;
    (void)ctx.gemm(g.problem, g.a.data(), g.b.data(), c.data());
    t_pause_at_next_allocation = nullptr;
  });
  // The second caller passed slow_path's check (untuned, not attempted) and holds no lock.
  const bool second_paused = second_between_check_and_tune.reached.wait();
  held->tuning.resume.open();
  first.join();  // published the winner and left `inflight`
  second_between_check_and_tune.resume.open();
  second.join();

  EXPECT_TRUE(first_tuning);
  EXPECT_TRUE(second_paused) << "the second caller allocated nothing between the check and "
                                "tune_once: this test's seam needs another place";
  EXPECT_EQ(counts.enumerations_of(g.problem), 1) << "tuned twice\n" << log.all();
  EXPECT_EQ(lines_containing(dir / "results.csv", g.problem.params_signature() + ","), 1u);
  // Whichever won (Test_Fast, as a rule; Default where an instrumented build slows the test
  // solution more), it is the tuned result that both callers share.
  const Lookup l = ctx.lookup(g.problem);
  EXPECT_EQ(l.source, Source::Tuned);
  EXPECT_EQ(lines_containing(dir / "results.csv",
                             g.problem.params_signature() + "," + std::string(l.solution) + ","),
            1u);
}

TEST(Races, AWinnerAppendedWhileWriteFileReplacesTheFileIsKept) {
  TempDir dir;
  Counts counts;
  Log log;
  FloatGemm before(16, 16, 16), during(24, 24, 24);
  const std::string before_line =
      "GemmTunableOp_float_NN," + before.problem.params_signature() + ",Test_Fast,0.01\n";
  write_text(dir / "results.csv", validator_lines() + before_line);
  Options o = test_options(dir, counts, log);
  o.tuning = true;
  Context ctx(o);

  Pause write_before_rename;
  g_pause_rename_target = "results.csv";
  g_pause_rename.store(&write_before_rename);
  std::thread writer([&] { ctx.write_file(); });
  // write_file holds its snapshot (without `during`) and is about to replace results.csv.
  const bool write_paused = write_before_rename.reached.wait();
  std::thread tuner([&] {
    std::vector<float> c(during.c.size());
    (void)ctx.gemm(during.problem, during.a.data(), during.b.data(), c.data());
  });
  // Unsynchronised, the winner is appended to the file about to be replaced, at once; synchronised,
  // the append waits for the write. Either way, the write goes on after this.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (lines_containing(dir / "results.csv", during.problem.params_signature() + ",") == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  write_before_rename.resume.open();
  writer.join();
  tuner.join();
  g_pause_rename.store(nullptr);

  EXPECT_TRUE(write_paused);
  EXPECT_EQ(counts.enumerations_of(during.problem), 1);
  const std::string file = read_text(dir / "results.csv");
  EXPECT_EQ(lines_containing(dir / "results.csv", during.problem.params_signature() + ","), 1u)
      << "the winner tuned during write_file is lost:\n"
      << file;
  EXPECT_EQ(lines_containing(dir / "results.csv", before_line), 1u) << file;
}

}  // namespace
}  // namespace gemmtune::testing
