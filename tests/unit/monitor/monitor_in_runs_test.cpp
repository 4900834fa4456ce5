// Where the monitor meets the runs: on the CPU backend tune and mamf run without it and say
// nothing about it; mamf's report places a monitor summary before its legend and leaves
// mamf-finder's lines alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "drivers/mamf/mamf_report.hpp"
#include "drivers/mamf/mamf_run.hpp"
#include "drivers/tune_run.hpp"

namespace gemmtune {
namespace {

class Notes final : public TuneObserver {
 public:
  void on_note(const std::string& note) override { notes.push_back(note); }
  std::vector<std::string> notes;
};

class Text final : public mamf::MamfObserver {
 public:
  void text(std::string_view t) override { out += t; }
  void progress(const mamf::MamfProgress&) override {}
  void warning(std::string_view) override {}
  std::string out;
};

TEST(MonitorInRuns, TuneOnTheCpuHasNoMonitorAndSaysNothing) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("gemmtune_monitor_tune_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  TuneOptions o;
  o.problems = {"GemmTunableOp_float_NN,nn_16_16_16_ld_16_16_16"};
  o.output = (dir / "r0.csv").string();
  o.backend = BackendKind::Cpu;
  o.tuner.timing.max_tuning_duration_ms = 1;
  o.tuner.timing.rotating_buffer_mb = 0;
  o.monitor_interval_ms = 1;
  Diagnostics diagnostics;
  Notes observer;
  const TuneSummary s = run_tune(o, diagnostics, observer, "monitor_in_runs_test");
  EXPECT_EQ(s.tuned.size(), 1u);
  EXPECT_FALSE(s.monitor);
  EXPECT_TRUE(observer.notes.empty());
  EXPECT_NE(describe(o).find("monitor_interval_ms=1\n"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(MonitorInRuns, MamfOnTheCpuHasNoMonitorAndItsReportNoMonitorLines) {
  mamf::MamfOptions o;
  o.m = {"m", {32}, {}};
  o.n = {"n", {16}, {}};
  o.k = {"k", {16}, {}};
  o.dtype = DType::Float32;
  o.backend = BackendKind::Cpu;
  o.bench.iterations = 2;
  o.bench.warmup_iterations = 1;
  o.warmup.max_seconds = 0;
  o.monitor_interval_ms = 1;
  Text text;
  const mamf::MamfResult r = mamf::run_mamf(o, text, "gemmtune mamf --test");
  EXPECT_FALSE(r.monitor);
  EXPECT_EQ(text.out.find("GPU monitor"), std::string::npos) << text.out;
  EXPECT_NE(mamf::describe(o).find("monitor_interval_ms=1\n"), std::string::npos);
}

TEST(MonitorInRuns, MamfSummaryPutsTheMonitorBeforeTheLegend) {
  mamf::SweepSummary s;
  s.add({{64, 64, 64}, {1, 2, 3}, {}, "Default"});
  mamf::SummaryInfo info;
  info.baseline = &s;
  info.planned_shapes = 1;
  const std::string without = mamf::format_summary(info);
  info.monitor = "GPU monitor: fake\n  throttled during measurements: no\n";
  const std::string with = mamf::format_summary(info);
  const auto legend = with.find("\nLegend: TFLOPS");
  const auto monitor = with.find("\nGPU monitor: fake\n  throttled during measurements: no\n");
  ASSERT_NE(monitor, std::string::npos) << with;
  EXPECT_LT(monitor, legend);
  // Everything else is as it was.
  std::string removed = with;
  removed.erase(monitor, info.monitor.size() + 1);
  EXPECT_EQ(removed, without);
}

}  // namespace
}  // namespace gemmtune
