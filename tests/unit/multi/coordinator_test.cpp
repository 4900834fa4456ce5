// The coordinator through run_tune, with real worker processes (the gemmtune executable) on the
// CPU backend: what its summary says — per-device loads, failures and their reasons, resume —
// after normal runs and injected faults (crash, hang past the time limit, no restarts left, a
// device lost at the start), shards, an output from another environment, and a stop while the
// workers start.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <thread>

#include "db/results_store.hpp"
#include "drivers/backend_factory.hpp"
#include "drivers/tune_run.hpp"
#include "temp_dir.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

std::string params(int m) {
  const std::string s = std::to_string(m);
  return "nn_" + s + "_16_16_ld_" + s + "_16_" + s;
}
std::string problem(int m) {
  return "GemmTunableOp_float_NN," + params(m);
}

// A fault injection variable set for one test; workers inherit it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

class Coordinator : public ::testing::Test {
 protected:
  TuneOptions options(std::vector<int> sizes, int workers = 2) {
    TuneOptions o;
    for (const int m : sizes) o.problems.push_back(problem(m));
    o.output = (dir_ / "r0.csv").string();
    o.backend = BackendKind::Cpu;
    o.devices.resize(static_cast<std::size_t>(workers));
    std::iota(o.devices.begin(), o.devices.end(), 0);
    o.tuner.timing.max_tuning_duration_ms = 1;
    o.tuner.timing.rotating_buffer_mb = 0;
    o.worker_executable = GEMMTUNE_EXECUTABLE;
    return o;
  }
  TuneSummary run(const TuneOptions& o) {
    Diagnostics diagnostics;
    TuneObserver quiet;
    return run_tune(o, diagnostics, quiet, "coordinator_test");
  }
  static std::size_t tuned_by_devices(const TuneSummary& s) {
    std::size_t n = 0;
    for (const auto& d : s.devices) n += d.tuned;
    return n;
  }

  testing::TempDir dir_;
};

TEST_F(Coordinator, TunesEveryProblemOnceAcrossTheDevices) {
  const auto s = run(options({8, 16, 24, 32, 40, 48}));
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(s.tuned.size(), 6u);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(tuned_by_devices(s), 6u);
  for (const auto& d : s.devices) {
    EXPECT_GE(d.tuned, 1u);
    EXPECT_TRUE(d.retired.empty()) << d.retired;
    EXPECT_NE(d.description.find("cpu device"), std::string::npos) << d.description;
  }
  EXPECT_EQ(open_results_store(dir_ / "r_full0.csv")->load().front().entries.size(), 6u);
  EXPECT_EQ(open_results_store(dir_ / "r_full1.csv")->load().front().entries.size(), 6u);
}

TEST_F(Coordinator, ResumesFromEveryOutput) {
  run(options({8, 16, 24}));
  std::filesystem::remove(dir_ / "r0.csv");  // what it held is still in r_full0.csv
  const auto s = run(options({8, 16, 24, 32}));
  EXPECT_EQ(s.already_tuned, 3u);
  ASSERT_EQ(s.tuned.size(), 1u);
  EXPECT_EQ(s.tuned[0].problem.params_signature(), params(32));
}

TEST_F(Coordinator, AProblemThatKillsTwoWorkersIsGivenUp) {
  const ScopedEnv crash("GEMMTUNE_TEST_CRASH_ON", params(24));
  const auto s = run(options({8, 16, 24, 32}));
  EXPECT_FALSE(s.complete());
  EXPECT_EQ(s.tuned.size(), 3u);
  ASSERT_EQ(s.failed.size(), 1u);
  EXPECT_EQ(s.failed[0].params_signature, params(24));
  EXPECT_NE(s.failed[0].reason.find("killed 2 workers"), std::string::npos) << s.failed[0].reason;
  EXPECT_NE(s.failed[0].reason.find("signal 6"), std::string::npos) << s.failed[0].reason;
  EXPECT_EQ(s.devices[0].worker_deaths + s.devices[1].worker_deaths, 2);
  for (const auto& d : s.devices) EXPECT_TRUE(d.retired.empty()) << "restarted, not retired";
}

TEST_F(Coordinator, AHungWorkerIsKilledAtTheTimeLimit) {
  const ScopedEnv hang("GEMMTUNE_TEST_HANG_ON", params(16));
  auto o = options({8, 16, 24});
  o.problem_timeout_s = 0.3;
  const auto s = run(o);
  EXPECT_EQ(s.tuned.size(), 2u);
  ASSERT_EQ(s.failed.size(), 1u);
  EXPECT_NE(s.failed[0].reason.find("took longer than --problem-timeout-s 0.3 s"),
            std::string::npos)
      << s.failed[0].reason;
}

TEST_F(Coordinator, WithoutRestartsTheRestIsReportedNotTried) {
  const ScopedEnv crash("GEMMTUNE_TEST_CRASH_ON", params(64));  // the largest: handed out first
  auto o = options({8, 16, 24, 32, 40, 64});
  o.max_worker_restarts = 0;
  const auto s = run(o);
  EXPECT_EQ(s.tuned.size() + s.failed.size(), 6u);
  for (const auto& d : s.devices) {
    EXPECT_NE(d.retired.find("died 1 time"), std::string::npos) << d.retired;
  }
  bool not_tried = false;
  for (const auto& f : s.failed) {
    not_tried = not_tried || f.reason.find("not tried: no device left") != std::string::npos;
  }
  EXPECT_TRUE(not_tried || s.tuned.size() == 5u);
}

TEST_F(Coordinator, ShardsSplitTheProblems) {
  auto first = options({8, 16, 24, 32, 40}, 1);
  first.shard = Shard{0, 2, "test"};
  auto second = first;
  second.shard = Shard{1, 2, "test"};
  const auto a = run(first);
  const auto b = run(second);
  EXPECT_EQ(a.all_problems, 5u);
  EXPECT_EQ(a.requested + b.requested, 5u);
  EXPECT_EQ(a.tuned.size() + b.tuned.size(), 5u);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "r_full0.rank0.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "r_full0.rank1.csv"));
}

// Device 1's worker never becomes ready (a stuck GPU context, say). A stop request must end the
// start-up at once — not after --problem-timeout-s, nor never without one — leaving no worker
// behind: the one that started is let go, the stuck one killed, both reaped.
TEST_F(Coordinator, AStopWhileTheWorkersStartEndsTheRunAtOnce) {
  const ScopedEnv hang("GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE", "1");
  auto o = options({8, 16, 24});
  o.problem_timeout_s = 30;  // what start-up waited for before stop was looked at there
  const auto begun = std::chrono::steady_clock::now();
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // run_tune resets the requests
    request_tune_stop();
  });
  const auto s = run(o);
  stopper.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(s.interrupted);
  EXPECT_TRUE(s.tuned.empty());
  ASSERT_EQ(s.failed.size(), 3u);
  for (const auto& f : s.failed) {
    EXPECT_NE(f.reason.find("interrupted"), std::string::npos) << f.reason;
  }
  for (const auto& d : s.devices) EXPECT_TRUE(d.retired.empty()) << d.retired;
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a worker was left unreaped";
  EXPECT_EQ(errno, ECHILD);
}

// Device 1's worker never becomes ready and is killed at the time limit, so device 0 tunes every
// problem. What it tuned is kept and gathered, but the run is not complete: a device asked for was
// lost (the run had ended as a plain success, exit 0, as if both devices had tuned).
TEST_F(Coordinator, ADeviceLostAtTheStartLeavesTheRunIncompleteAndKeepsTheOthersResults) {
  const ScopedEnv hang("GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE", "1");
  auto o = options({8, 16, 24});
  o.problem_timeout_s = 1;
  const auto s = run(o);
  EXPECT_EQ(s.tuned.size(), 3u);
  EXPECT_TRUE(s.failed.empty());
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_TRUE(s.devices[0].retired.empty()) << s.devices[0].retired;
  EXPECT_EQ(s.devices[0].tuned, 3u);
  EXPECT_NE(s.devices[1].retired.find("its worker could not start"), std::string::npos)
      << s.devices[1].retired;
  EXPECT_FALSE(s.complete()) << "a run that lost device 1 passed for complete";
  EXPECT_EQ(open_results_store(dir_ / "r_full0.csv")->load().front().entries.size(), 3u);
}

// Another device's file that holds nothing usable (bad lines only) is not this run's output: a
// note, and the run goes on (it had stopped with exit 3 once such a file was bad input).
TEST_F(Coordinator, AnUnusableFileOfAnotherDeviceIsANote) {
  {
    std::ofstream out(dir_ / "r7.csv");
    out << "GemmTunableOp_float_NN," << params(8) << ",Default,1e999\n";
  }
  const TuneSummary s = run(options({8, 16}));
  EXPECT_EQ(s.tuned.size(), 2u);
  const bool noted = std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) {
    return n.find("r7.csv could not be used") != std::string::npos;
  });
  EXPECT_TRUE(noted);
}

TEST_F(Coordinator, RefusesAnOutputFromAnotherEnvironment) {
  ResultsTable foreign;
  foreign.environment.set("GEMMTUNE_VERSION", "0.0.1");
  foreign.entries.push_back({"GemmTunableOp_float_NN", params(8), "Default", 1.0, {}});
  open_results_store(dir_ / "r1.csv")->write(foreign);
  EXPECT_THROW(run(options({8, 16})), ValidatorMismatchError);
}

// GPUs asked for by number (--devices) where there is none: under --backend auto they were played
// by CPU workers, quietly, where --device N is refused.
TEST_F(Coordinator, DevicesUnderAutoWithoutAGpuAreRefused) {
  if (cuda_available()) GTEST_SKIP() << "a GPU is visible: auto chooses CUDA";
  TuneOptions o = options({8});
  o.backend = BackendKind::Auto;
  try {
    run(o);
    FAIL() << "devices 0,1 under auto ran on the CPU";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "devices 0,1: no CUDA GPU is visible, so --backend auto chose the CPU"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gemmtune
