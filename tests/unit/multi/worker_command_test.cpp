// The worker's argument vector: every tuning option is passed explicitly and the device, output
// and backend are the coordinator's; CPU workers split the cores unless the user set threads.
#include "drivers/multi/worker_command.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace gemmtune {
namespace {

std::string value_after(const std::vector<std::string>& args, const std::string& option) {
  const auto it = std::find(args.begin(), args.end(), option);
  return it == args.end() || it + 1 == args.end() ? "<missing>" : *(it + 1);
}

TEST(WorkerCommand, PassesEveryTuningOption) {
  TuneOptions o;
  o.backend = BackendKind::Cpu;
  o.tuner.timing.max_tuning_duration_ms = 1.5;
  o.tuner.timing.max_tuning_iterations = 7;
  o.tuner.timing.max_warmup_duration_ms = 2.25;
  o.tuner.timing.max_warmup_iterations = 3;
  o.tuner.timing.max_finalists = 4;
  o.tuner.timing.confirmation_contenders = 3;
  o.tuner.timing.rotating_buffer_mb = 0.5;
  o.tuner.timing.flush_cache = true;
  o.tuner.timing.mode = TimingMode::Immediate;
  o.tuner.timing.trial_turn_ms = 12;
  o.tuner.timing.idle_between_turns_ms = 7.5;
  o.tuner.timing.burst_check_below_ms = 0.35;
  o.tuner.min_gain = 0.025;
  o.tuner.trial_min_gain = 0.004;
  o.tuner.check = parse_numerical_check("1e-05_0.001");
  o.tuner.search.space = SearchSpace::Exhaustive;
  o.tuner.search.max_workspace_bytes = 3u << 19;  // 1.5 MiB
  o.tuner.seed = 99;
  const auto args = worker_arguments("/x/gemmtune", o, 2, "out/res2.csv");
  EXPECT_EQ(args[0], "/x/gemmtune");
  EXPECT_EQ(args[1], "tune");
  EXPECT_EQ(args[2], "--worker");
  EXPECT_EQ(value_after(args, "--output"), "out/res2.csv");
  EXPECT_EQ(value_after(args, "--backend"), "cpu");
  EXPECT_EQ(value_after(args, "--device"), "2");
  EXPECT_EQ(value_after(args, "--max-tuning-duration-ms"), "1.5");
  EXPECT_EQ(value_after(args, "--max-tuning-iterations"), "7");
  EXPECT_EQ(value_after(args, "--max-warmup-duration-ms"), "2.25");
  EXPECT_EQ(value_after(args, "--max-warmup-iterations"), "3");
  EXPECT_EQ(value_after(args, "--max-finalists"), "4");
  EXPECT_EQ(value_after(args, "--confirmation-contenders"), "3");
  EXPECT_EQ(value_after(args, "--rotating-buffer-mb"), "0.5");
  EXPECT_NE(std::find(args.begin(), args.end(), "--flush-cache=true"), args.end());
  EXPECT_EQ(value_after(args, "--timing-mode"), "immediate");
  EXPECT_EQ(value_after(args, "--min-gain-percent"), "2.5");
  EXPECT_EQ(value_after(args, "--trial-min-gain-percent"), "0.4");
  EXPECT_EQ(value_after(args, "--trial-turn-ms"), "12");
  EXPECT_EQ(value_after(args, "--idle-between-turns-ms"), "7.5");
  EXPECT_EQ(value_after(args, "--burst-check-below-ms"), "0.35");
  EXPECT_EQ(value_after(args, "--numerical-check"), "1e-05_0.001");
  EXPECT_EQ(value_after(args, "--search"), "exhaustive");
  EXPECT_EQ(value_after(args, "--workspace-mb"), "1.5");
  EXPECT_EQ(value_after(args, "--seed"), "99");
}

TEST(WorkerCommand, DefaultsLeaveRotationToTheWorker) {
  const auto args = worker_arguments("g", TuneOptions{}, 0, "r0.csv");
  EXPECT_EQ(std::find(args.begin(), args.end(), "--rotating-buffer-mb"), args.end());
  // Said even when off: the worker would otherwise take GEMMTUNE_FLUSH_CACHE from the environment.
  EXPECT_NE(std::find(args.begin(), args.end(), "--flush-cache=false"), args.end());
  EXPECT_EQ(value_after(args, "--numerical-check"), "on");
}

TEST(WorkerCommand, CpuWorkersSplitTheCores) {
  TuneOptions o;
  o.backend = BackendKind::Cpu;
  o.devices = {0, 1, 2};
  const auto none = [](const char*) -> const char* { return nullptr; };
  auto env = worker_environment(o, 8, none);
  std::map<std::string, std::string> m(env.begin(), env.end());
  EXPECT_EQ(m["OPENBLAS_NUM_THREADS"], "2");
  EXPECT_EQ(m["OMP_NUM_THREADS"], "2");

  env = worker_environment(o, 2, none);
  m = {env.begin(), env.end()};
  EXPECT_EQ(m["OPENBLAS_NUM_THREADS"], "1");

  const auto user_set = [](const char* name) -> const char* {
    return std::string(name) == "OPENBLAS_NUM_THREADS" ? "4" : nullptr;
  };
  env = worker_environment(o, 8, user_set);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0].first, "OMP_NUM_THREADS");

  o.backend = BackendKind::Cuda;
  EXPECT_TRUE(worker_environment(o, 8, none).empty());
}

}  // namespace
}  // namespace gemmtune
