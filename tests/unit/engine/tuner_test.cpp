// The Tuner's pipeline on a fake backend: dispositions, screening, checks, selection, failures.
#include "tuner/tuner.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_backend.hpp"

namespace gemmtune {
namespace {

using testing::Behaviour;
using testing::FakeBackend;
using testing::FakeClock;
using testing::FakeProvider;
using testing::FakeSolutionState;

struct TunerFixture : ::testing::Test {
  FakeBackend backend;
  Registry registry;
  std::shared_ptr<FakeProvider> provider = std::make_shared<FakeProvider>(backend.clock);
  Problem problem =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 6, 5);
  TunerOptions options;

  TunerFixture() {
    registry.add(provider);
    options.timing.rotating_buffer_mb = 0.0;
    options.timing.max_tuning_iterations = 20;
    options.timing.max_tuning_duration_ms = 1000;
  }
  TuningReport tune() { return Tuner(backend, registry, options).tune(problem); }
  static const CandidateReport& find(const TuningReport& r, std::string_view name) {
    auto it = std::find_if(r.candidates.begin(), r.candidates.end(),
                           [&](const CandidateReport& c) { return c.solution == name; });
    EXPECT_NE(it, r.candidates.end()) << name;
    return *it;
  }
};

TEST_F(TunerFixture, LowestMedianWins) {
  provider->add("Default", 2.0);
  provider->add("Fast", 1.0);
  provider->add("Medium", 1.5);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Fast");
  EXPECT_EQ(find(r, "Fast").disposition, Disposition::Winner);
  EXPECT_EQ(find(r, "Medium").disposition, Disposition::Slower);
  EXPECT_EQ(find(r, "Default").disposition, Disposition::Slower);
  EXPECT_DOUBLE_EQ(r.winner_stats.median_ms, 1.0);
  EXPECT_DOUBLE_EQ(r.default_stats.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(r.speedup_over_default(), 2.0);
  EXPECT_GT(find(r, "Fast").tflops, 0);
}

TEST_F(TunerFixture, ReportsWhereTheTimeWent) {
  provider->add("Default", 2.0);
  provider->add("Fast", 1.0);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<std::string> names;
  double sum = 0;
  for (const PhaseTime& p : r.phases) {
    names.push_back(p.phase);
    EXPECT_GE(p.seconds, 0) << p.phase;
    sum += p.seconds;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"enumerate", "operands", "screen", "check", "measure",
                                             "confirm", "trial", "burst", "select"}));
  EXPECT_LE(sum, r.elapsed_s);
  EXPECT_EQ(describe_phases(r).rfind("enumerate ", 0), 0u) << describe_phases(r);

  // A problem that ends early reports the phases it ran.
  problem.m = 0;  // invalid: ends before any phase
  EXPECT_TRUE(tune().phases.empty());
}

TEST_F(TunerFixture, WarmupAndSettleRunAsIssuedAndEveryTimedPhaseAsTheModeSays) {
  // A first launch may wait for an idle device (lazy kernel loading): warmup never holds the
  // stream; nor does the settle, whose samples are not used; screening and measurement time as
  // options.timing.mode says.
  provider->add("Default", 2.0);
  provider->add("Fast", 1.0);
  for (const TimingMode mode : {TimingMode::Queued, TimingMode::Immediate}) {
    backend.timer_modes.clear();
    options.timing.mode = mode;
    ASSERT_TRUE(tune().ok());
    ASSERT_GE(backend.timer_modes.size(), 4u);  // 2 warmups, 2 screenings, settle, measurement
    for (std::size_t i = 0; i < backend.timer_modes.size(); ++i) {
      // Each candidate's warmup is right before its screening: timers 0 and 2 are warmups;
      // timer 4 is the settle (no numerical check here: it makes no timer).
      const TimingMode expected = i == 0 || i == 2 || i == 4 ? TimingMode::Immediate : mode;
      EXPECT_EQ(backend.timer_modes[i], expected) << "timer " << i;
    }
  }
}

TEST_F(TunerFixture, SelectsByMedianNotMean) {
  provider->add("Default", 2.0);
  // Spiky: 1 ms but every fifth sample 100 ms — mean ~20.8 ms, median 1 ms.
  auto spiky = provider->add("Spiky");
  spiky->time_ms = [](int call) { return call % 5 == 4 ? 100.0 : 1.0; };
  provider->add("Steady", 1.2);
  options.timing.screening_iterations = 0;  // keep screening out of it
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_GT(find(r, "Spiky").stats.mean_ms, find(r, "Steady").stats.mean_ms);
  EXPECT_EQ(r.winner, "Spiky");
}

TEST_F(TunerFixture, DefaultWinsTies) {
  provider->add("Default", 1.0);
  provider->add("Same", 1.0);
  EXPECT_EQ(tune().winner, "Default");
}

TEST_F(TunerFixture, DefaultWinsWithinNoise) {
  auto d = provider->add("Default");
  d->time_ms = [](int call) { return call % 2 ? 1.2 : 0.8; };  // median 1.0, noisy
  provider->add("Slightly", 0.99);
  EXPECT_EQ(tune().winner, "Default");
  options.default_margin_sigmas = 0;  // lowest median outright
  options.min_gain = 0;
  EXPECT_EQ(tune().winner, "Slightly");
}

TEST_F(TunerFixture, AGainBelowTheMinimumLeavesDefault) {
  // Noise-free samples: 1% faster is beyond the noise, but under the default 1.5% minimum (and,
  // here, with no trial in long turns to take it).
  options.trial_min_gain = 0;
  provider->add("Default", 1.0);
  provider->add("OnePercent", 0.99);
  TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_EQ(find(r, "OnePercent").disposition, Disposition::Slower);
  EXPECT_NE(find(r, "OnePercent").reason.find("less than the minimum gain of 1.50%"),
            std::string::npos)
      << find(r, "OnePercent").reason;
  options.min_gain = 0.005;
  EXPECT_EQ(tune().winner, "OnePercent");
  provider->add("TwoPercent", 0.98);
  options.min_gain = 0.015;
  EXPECT_EQ(tune().winner, "TwoPercent");
}

// A solution whose time per call depends on how long it has run back to back (`streak_ms`, the
// fake time since another solution last ran) and on how many of its turns have lasted over
// `long_turn_ms` so far, the current one included (`long_turns`).
void time_by_turns(FakeSolutionState& state, FakeClock& clock, double long_turn_ms,
                   std::function<double(double streak_ms, int long_turns)> time) {
  struct Turns {
    double last_end = -1;
    double streak_ms = 0;
    int long_turns = 0;
    bool counted = false;
  };
  auto turns = std::make_shared<Turns>();
  state.time_ms = [&clock, turns, long_turn_ms, time](int) {
    if (clock.now_ms != turns->last_end) {  // another solution ran since: a new turn
      turns->streak_ms = 0;
      turns->counted = false;
    }
    if (!turns->counted && turns->streak_ms >= long_turn_ms) {
      ++turns->long_turns;
      turns->counted = true;
    }
    const double ms = time(turns->streak_ms, turns->long_turns);
    turns->streak_ms += ms;
    turns->last_end = clock.now_ms + ms;
    return ms;
  };
}

// A candidate that takes `ahead_ms` an iteration for its first 3 ms back to back and `behind_ms`
// after: its lead shows in the confirmation's short turns, not in the trial's long ones.
std::shared_ptr<FakeSolutionState> add_short_lived(FakeProvider& provider, FakeClock& clock,
                                                   double ahead_ms, double behind_ms) {
  auto state = provider.add("ShortLived");
  time_by_turns(*state, clock, 3.0,
                [=](double streak_ms, int) { return streak_ms < 3.0 ? ahead_ms : behind_ms; });
  return state;
}

TEST_F(TunerFixture, ALeadUnderTheMinimumGainWinsItsTrialInLongTurns) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  // 1% ahead, noise-free, in every phase: under the 1.5% minimum gain, so it goes to the trial,
  // where it keeps its lead in every turn.
  provider->add("Default", 1.0);
  auto one_percent = provider->add("OnePercent", 0.99);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "OnePercent");
  const CandidateReport& winner = find(r, "OnePercent");
  EXPECT_NE(winner.reason.find("in the trial (8 turns of 20 ms) 1.00% below"), std::string::npos)
      << winner.reason;
  // The trial's samples are what it reports: 8 turns of about 20 ms at 0.99 ms an iteration.
  EXPECT_GE(winner.stats.iterations, 160);
  EXPECT_LE(winner.stats.iterations, 170);
  EXPECT_NEAR(r.winner_stats.median_ms, 0.99, 1e-9);
  EXPECT_NEAR(r.default_stats.median_ms, 1.0, 1e-9);

  // A lead under the trial's minimum gain is tried too, and keeps no more than that in the trial.
  one_percent->time_ms = [](int) { return 0.997; };
  TuningReport small = tune();
  ASSERT_TRUE(small.ok()) << small.error;
  EXPECT_EQ(small.winner, "Default");
  EXPECT_NE(find(small, "OnePercent")
                .reason.find("0.30% below Default's, less than the trial's minimum gain of 0.50%"),
            std::string::npos)
      << find(small, "OnePercent").reason;

  // No lead, no trial.
  const int calls = one_percent->calls;
  one_percent->time_ms = [](int) { return 1.001; };
  TuningReport behind = tune();
  ASSERT_TRUE(behind.ok()) << behind.error;
  EXPECT_EQ(behind.winner, "Default");
  EXPECT_EQ(find(behind, "OnePercent").reason.find("trial"), std::string::npos)
      << find(behind, "OnePercent").reason;
  EXPECT_LT(one_percent->calls - calls, 100);

  // Off: the minimum gain alone decides.
  one_percent->time_ms = [](int) { return 0.99; };
  options.trial_min_gain = 0;
  EXPECT_EQ(tune().winner, "Default");
  options.trial_min_gain = 0.005;
  options.timing.trial_turn_ms = 0;
  EXPECT_EQ(tune().winner, "Default");

  // A GEMM too long to fit 20 iterations in a turn gets no trial, and its report says so.
  options.timing.trial_turn_ms = 8;
  const TuningReport too_long = tune();
  ASSERT_TRUE(too_long.ok()) << too_long.error;
  EXPECT_EQ(too_long.winner, "Default");
  EXPECT_NE(find(too_long, "OnePercent")
                .reason.find("less than the minimum gain of 1.50% (no trial: Default's 1 ms fits "
                             "fewer than 20 iterations in a 8 ms turn)"),
            std::string::npos)
      << find(too_long, "OnePercent").reason;
}

// A device's speed in the state the finalists are measured in: here `Default` runs 1.0 ms on a
// device that has just idled (wall time, as TimingPolicy::idle_between_turns_ms sleeps) and 1.1 ms
// when busy, and `LimitOnly` 1.05 ms either way, like an H100's cuBLAS Default and a cuBLASLt
// configuration that does not speed up with the clock. Back to back, LimitOnly wins; with idle
// time after every turn, Default does, and no settle runs before the finalists.
TEST_F(TunerFixture, IdleBetweenTurnsMeasuresTheFinalistsWithTheDeviceIdleBetweenThem) {
  using Wall = std::chrono::steady_clock;
  struct Device {
    Wall::time_point last_call = Wall::now();
    Wall::time_point last_idle = Wall::time_point{};
    // Whether the device idled 6 ms or more in the last 3 ms of wall time, this call included.
    bool rested() {
      const Wall::time_point now = Wall::now();
      if (now - last_call >= std::chrono::milliseconds(6)) last_idle = now;
      last_call = now;
      return now - last_idle < std::chrono::milliseconds(3);
    }
  };
  const auto device = std::make_shared<Device>();
  auto reference = provider->add("Default");
  reference->time_ms = [device](int) { return device->rested() ? 1.0 : 1.1; };
  auto rival = provider->add("LimitOnly");
  rival->time_ms = [device](int) {
    device->rested();
    return 1.05;
  };
  options.timing.screening_iterations = 0;

  const TuningReport busy = tune();
  ASSERT_TRUE(busy.ok()) << busy.error;
  EXPECT_EQ(busy.winner, "LimitOnly");
  const int busy_calls = reference->calls;

  options.timing.idle_between_turns_ms = 12;
  const TuningReport idle = tune();
  ASSERT_TRUE(idle.ok()) << idle.error;
  EXPECT_EQ(idle.winner, "Default") << find(idle, "LimitOnly").reason;
  EXPECT_DOUBLE_EQ(idle.default_stats.median_ms, 1.0);
  // No settle: the 100 ms of back-to-back Default (about 90 calls of 1.1 ms) are gone.
  EXPECT_LT(reference->calls - busy_calls, busy_calls - 50);
}

TEST_F(TunerFixture, ALeadWithinTheConfirmationsNoiseStillGetsATrial) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  // 1% ahead in its median, but every sample 4% off it one way or the other: within the noise of
  // the confirmation's few samples, beyond the noise of the trial's many.
  provider->add("Default", 1.0);
  auto noisy = provider->add("Noisy");
  noisy->time_ms = [](int call) { return call % 3 == 0 ? 0.95 : call % 3 == 1 ? 0.99 : 1.03; };
  // First the confirmation's verdict alone, with no minimum gain: within its noise.
  options.trial_min_gain = 0;
  options.min_gain = 0;
  const TuningReport untried = tune();
  ASSERT_TRUE(untried.ok()) << untried.error;
  EXPECT_EQ(untried.winner, "Default");
  EXPECT_NE(find(untried, "Noisy").reason.find("1.00% below Default's, within the noise"),
            std::string::npos)
      << find(untried, "Noisy").reason;

  options.trial_min_gain = 0.005;
  options.min_gain = 0.015;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Noisy");
  EXPECT_NE(find(r, "Noisy").reason.find("in the trial (8 turns of 20 ms) 1.00% below"),
            std::string::npos)
      << find(r, "Noisy").reason;
}

TEST_F(TunerFixture, ALeadUnderTwiceTheMinimumGainReplacesDefaultOnlyThroughTheTrial) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  provider->add("Default", 1.0);
  // 2% ahead, beyond the noise and the 1.5% minimum gain, in the confirmation's short turns; 3%
  // behind in the trial's long ones.
  auto short_lived = add_short_lived(*provider, backend.clock, 0.98, 1.03);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_NE(find(r, "ShortLived")
                .reason.find("confirmation median 2.00% below Default's, less than the 3.00% that "
                             "replaces Default without a trial; in the trial (8 turns of 20 ms)"),
            std::string::npos)
      << find(r, "ShortLived").reason;

  // Steady at 2% ahead, it wins its trial.
  short_lived->time_ms = [](int) { return 0.98; };
  const TuningReport steady = tune();
  EXPECT_EQ(steady.winner, "ShortLived");
  EXPECT_NE(find(steady, "ShortLived").reason.find("in the trial (8 turns of 20 ms) 2.00% below"),
            std::string::npos)
      << find(steady, "ShortLived").reason;

  // 4% ahead: taken on the confirmation, no trial.
  short_lived->time_ms = [](int) { return 0.96; };
  const TuningReport clear = tune();
  EXPECT_EQ(clear.winner, "ShortLived");
  EXPECT_EQ(find(clear, "ShortLived").reason.find("trial"), std::string::npos)
      << find(clear, "ShortLived").reason;
}

TEST_F(TunerFixture, ALeadThatHoldsOnlyInShortTurnsLosesTheTrial) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  // 1% ahead for its first 3 ms back to back, 5% behind after: ahead in the confirmation's short
  // turns, behind in the trial's 8 ms ones.
  provider->add("Default", 1.0);
  add_short_lived(*provider, backend.clock, 0.99, 1.05);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  const std::string& reason = find(r, "ShortLived").reason;
  EXPECT_NE(reason.find("confirmation median 1.00% below Default's"), std::string::npos) << reason;
  EXPECT_NE(reason.find("in the trial (8 turns of 20 ms)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("above Default's"), std::string::npos) << reason;
}

TEST_F(TunerFixture, WhereTheFastestLosesItsTrialTheNextContenderIsTried) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  // ShortLived is the fastest contender of the confirmation (1.5% ahead in its short turns) and
  // loses its trial (5% behind in long ones); Steady, 1% ahead in every phase, is tried next.
  provider->add("Default", 1.0);
  add_short_lived(*provider, backend.clock, 0.985, 1.05);
  auto steady = provider->add("Steady", 0.99);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Steady");
  const std::string& won = find(r, "Steady").reason;
  EXPECT_NE(won.find("in the trial (8 turns of 20 ms) 1.00% below, ahead in every turn"),
            std::string::npos)
      << won;
  const std::string& lost = find(r, "ShortLived").reason;
  EXPECT_NE(lost.find("confirmation median 1.50% below Default's"), std::string::npos) << lost;
  EXPECT_NE(lost.find("in the trial (8 turns of 20 ms)"), std::string::npos) << lost;
  EXPECT_NE(lost.find("above Default's"), std::string::npos) << lost;

  // A contender without a lead on the confirmation gets no trial after the fastest lost its own.
  const int calls = steady->calls;
  steady->time_ms = [](int) { return 1.002; };
  const TuningReport none = tune();
  ASSERT_TRUE(none.ok()) << none.error;
  EXPECT_EQ(none.winner, "Default");
  EXPECT_EQ(find(none, "Steady").reason.find("trial"), std::string::npos)
      << find(none, "Steady").reason;
  EXPECT_LT(steady->calls - calls, 200);
}

// A candidate `lead_ms` an iteration against Default's 1 ms, but 1.03 ms for most of its fifth
// turn over 3 ms (a kernel with two speeds; the warm-up and screening, back to back, may make one
// before the trial): its pooled median keeps the lead, beyond the noise, with a turn behind.
std::shared_ptr<FakeSolutionState> add_two_speed(FakeProvider& provider, FakeClock& clock,
                                                 double lead_ms) {
  auto state = provider.add("TwoSpeed");
  time_by_turns(*state, clock, 3.0, [lead_ms](double streak_ms, int long_turns) {
    return long_turns == 5 && streak_ms >= 3.0 ? 1.03 : lead_ms;
  });
  return state;
}

TEST_F(TunerFixture, ASmallLeadThatFallsBehindInOneTurnLosesTheTrial) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  provider->add("Default", 1.0);
  add_two_speed(*provider, backend.clock, 0.992);  // 0.8%: under twice the trial's 0.5%
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_NEAR(find(r, "TwoSpeed").stats.median_ms, 0.992, 1e-9);
  const std::string& reason = find(r, "TwoSpeed").reason;
  // (How many turns fall behind depends on where the fake's slow stretch lands.)
  EXPECT_NE(reason.find("in the trial (8 turns of 20 ms) 0.80% below Default's, and ahead in "),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find(" of 8 turns (a lead under 1.00% must be ahead in all)"), std::string::npos)
      << reason;
}

TEST_F(TunerFixture, ALeadOfTwiceTheTrialsMinimumGainWinsWithATurnBehind) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  provider->add("Default", 1.0);
  // 2%: under the 3% that replaces Default without a trial where one fits, so it is tried.
  add_two_speed(*provider, backend.clock, 0.98);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "TwoSpeed");
  const std::string& reason = find(r, "TwoSpeed").reason;
  EXPECT_NE(reason.find("in the trial (8 turns of 20 ms) 2.00% below, ahead in "),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find(" of 8 turns"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("every turn"), std::string::npos) << reason;
}

TEST_F(TunerFixture, ACandidateThatFailsInTheTrialLeavesDefault) {
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  provider->add("Default", 1.0);
  auto flaky = provider->add("Flaky");
  // 1% ahead, until it runs 3 ms back to back, which only the trial's turns do.
  time_by_turns(*flaky, backend.clock, 3.0, [](double streak_ms, int) {
    if (streak_ms >= 3.0) throw std::runtime_error("lost its way");
    return 0.99;
  });
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_EQ(find(r, "Flaky").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Flaky").reason.find("lost its way"), std::string::npos)
      << find(r, "Flaky").reason;
}

TEST_F(TunerFixture, FaultySolutionNeverWins) {
  provider->add("Default", 2.0);
  provider->add("Wrong", 0.1, Behaviour::Wrong);
  provider->add("Lazy", 0.1, Behaviour::NoWrite);  // leaves C poisoned
  provider->add("Right", 1.5);  // > 1.5 × the wrong ones: they must not screen it out
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Right");
  EXPECT_EQ(find(r, "Wrong").disposition, Disposition::Incorrect);
  EXPECT_NE(find(r, "Wrong").reason.find("C[1,1]"), std::string::npos) << find(r, "Wrong").reason;
  EXPECT_EQ(find(r, "Lazy").disposition, Disposition::Incorrect);
  EXPECT_NE(find(r, "Lazy").reason.find("nan"), std::string::npos) << find(r, "Lazy").reason;
}

TEST_F(TunerFixture, CheckOffLetsAnyResultCompete) {
  provider->add("Default", 2.0);
  provider->add("Wrong", 0.1, Behaviour::Wrong);
  options.check = parse_numerical_check("off");
  EXPECT_EQ(tune().winner, "Wrong");
}

TEST_F(TunerFixture, ASolutionWrongUnderOtherScalarsNeverWins) {
  // Right at alpha = 1, beta = 0, which the tuning times; wrong at the alpha and beta an
  // application may call the stored solution with.
  provider->add("Default", 2.0);
  provider->add("IgnoresScalars", 0.5, Behaviour::IgnoresScalars);
  provider->add("Right", 1.5);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Right");
  const auto& wrong = find(r, "IgnoresScalars");
  EXPECT_EQ(wrong.disposition, Disposition::Incorrect);
  EXPECT_NE(wrong.reason.find("at alpha = 0.75, beta = -0.5: "), std::string::npos) << wrong.reason;
}

TEST_F(TunerFixture, ASolutionThatRefusesOtherScalarsCompetes) {
  // An application's call it refuses runs on Default, so a refusal is no wrong answer.
  provider->add("Default", 2.0);
  provider->add("Refuses", 1.0, Behaviour::RefusesOtherScalars);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Refuses");
}

TEST_F(TunerFixture, ASolutionThatFailsUnderOtherScalarsIsFailed) {
  provider->add("Default", 2.0);
  provider->add("Fails", 1.0, Behaviour::FailsOtherScalars);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  const auto& failed = find(r, "Fails");
  EXPECT_EQ(failed.disposition, Disposition::Failed);
  EXPECT_NE(failed.reason.find("numerical check run at alpha = 0.75, beta = -0.5: alpha = 1"),
            std::string::npos)
      << failed.reason;
}

TEST_F(TunerFixture, OtherScalarsAreNotCheckedWhereDefaultCannotRunThem) {
  // As a ScaledGemm with an fp8 output: Default takes beta = 0 only, so there is no reference.
  provider->add("Default", 2.0, Behaviour::FailsOtherScalars);
  provider->add("IgnoresScalars", 1.0, Behaviour::IgnoresScalars);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "IgnoresScalars");
}

TEST_F(TunerFixture, TheTunedScalarsAreCheckedToo) {
  // Tuned at the check's other scalars, a solution that ignores them fails the first check run.
  options.alpha = kOtherCheckAlpha;
  options.beta = kOtherCheckBeta;
  provider->add("Default", 2.0);
  auto ignores = provider->add("IgnoresScalars", 1.0, Behaviour::IgnoresScalars);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_EQ(find(r, "IgnoresScalars").disposition, Disposition::Incorrect);
  EXPECT_EQ(find(r, "IgnoresScalars").reason.find("at alpha"), std::string::npos);
}

TEST_F(TunerFixture, ThrowingAndFailingCandidatesDoNotStopTheSweep) {
  provider->add("Default", 2.0);
  provider->add("Thrower", 0.5, Behaviour::Throw);
  provider->add("Failer", 0.5, Behaviour::Fail);
  provider->add("Good", 1.0);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Good");
  EXPECT_EQ(find(r, "Thrower").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Thrower").reason.find("kaboom"), std::string::npos);
  EXPECT_EQ(find(r, "Failer").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Failer").reason.find("status 13"), std::string::npos);
}

// A provider whose enumeration throws (a library query that errs on this problem).
class ThrowingProvider final : public SolutionProvider {
 public:
  explicit ThrowingProvider(bool device_lost) : device_lost_(device_lost) {}
  std::string_view name() const override { return "broken"; }
  std::string_view backend() const override { return "fake"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    if (device_lost_) throw DeviceError(__FILE__, __LINE__, "device fell off the bus");
    throw Error(__FILE__, __LINE__, "heuristic query failed with status 7");
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override { return nullptr; }

 private:
  bool device_lost_;
};

// A name a results line cannot hold fails its candidate, however fast: written, its line read
// back as a bad line, and the problem was tuned again on every run.
TEST_F(TunerFixture, ANameWithACommaOrALineBreakCannotWin) {
  provider->add("Default", 2.0);
  provider->add("Mine,x", 0.1);
  provider->add("Mine\nx", 0.1);
  provider->add("Good", 1.0);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Good");
  for (const char* name : {"Mine,x", "Mine\nx"}) {
    EXPECT_EQ(find(r, name).disposition, Disposition::Failed) << name;
    EXPECT_NE(find(r, name).reason.find("comma or a control character"), std::string::npos)
        << find(r, name).reason;
  }
}

TEST_F(TunerFixture, AProviderThatFailsToEnumerateIsReportedAndTheOthersStillCompete) {
  provider->add("Default", 2.0);
  provider->add("Good", 1.0);
  registry.add(std::make_shared<ThrowingProvider>(false));
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Good");
  const CandidateReport& broken = find(r, "broken (enumeration failed)");
  EXPECT_EQ(broken.disposition, Disposition::Unsupported);
  EXPECT_NE(broken.reason.find("heuristic query failed with status 7"), std::string::npos)
      << broken.reason;
}

TEST_F(TunerFixture, WhenDefaultsProviderFailsToEnumerateTheErrorSaysWhy) {
  provider->add("Good", 1.0);  // no Default here: it would have come from the broken provider
  registry.add(std::make_shared<ThrowingProvider>(false));
  const TuningReport r = tune();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("no 'Default' solution"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("broken (enumeration failed): "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("heuristic query failed with status 7"), std::string::npos) << r.error;
  // Never measured, and not left looking "slower".
  EXPECT_EQ(find(r, "Good").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Good").reason.find("not tuned: no 'Default' solution"), std::string::npos)
      << find(r, "Good").reason;
}

TEST_F(TunerFixture, ALostDeviceWhileEnumeratingEndsTheProblemAsFatal) {
  provider->add("Default", 2.0);
  registry.add(std::make_shared<ThrowingProvider>(true));
  const TuningReport r = tune();
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.fatal);
  EXPECT_NE(r.error.find("device fell off the bus"), std::string::npos) << r.error;
}

TEST_F(TunerFixture, UnsupportedIsRecordedWithItsReason) {
  provider->add("Default", 2.0);
  auto u = provider->add("Picky", 0.1);
  u->support = Support::no("needs k % 64 == 0");
  const TuningReport r = tune();
  EXPECT_EQ(find(r, "Picky").disposition, Disposition::Unsupported);
  EXPECT_EQ(find(r, "Picky").reason, "needs k % 64 == 0");
  EXPECT_EQ(u->calls, 0);
  EXPECT_EQ(r.winner, "Default");
}

TEST_F(TunerFixture, OnlyTheFastestCorrectFinalistsAreMeasured) {
  provider->add("Default", 1.0);
  provider->add("Wrong", 0.5, Behaviour::Wrong);  // fastest, but never a finalist
  for (int i = 0; i < 5; ++i) provider->add(fmt::format("C{}", i), 0.6 + 0.01 * i);
  options.timing.max_finalists = 3;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "C0");
  EXPECT_EQ(find(r, "Wrong").disposition, Disposition::Incorrect);
  for (const char* measured : {"C0", "C1", "C2"}) {
    EXPECT_NE(find(r, measured).disposition, Disposition::ScreenedOut) << measured;
  }
  for (const char* dropped : {"C3", "C4"}) {
    EXPECT_EQ(find(r, dropped).disposition, Disposition::ScreenedOut) << dropped;
    EXPECT_NE(find(r, dropped).reason.find("not among the 3 fastest"), std::string::npos);
  }
  EXPECT_EQ(find(r, "Default").disposition, Disposition::Slower);  // always measured
}

TEST_F(TunerFixture, ScreeningDropsClearlySlowerCandidates) {
  provider->add("Default", 1.0);
  auto slow = provider->add("Slow", 10.0);
  provider->add("Close", 1.2);  // within 1.5× of the best: kept
  const TuningReport r = tune();
  EXPECT_EQ(find(r, "Slow").disposition, Disposition::ScreenedOut);
  EXPECT_NE(find(r, "Slow").reason.find("Default"), std::string::npos);
  EXPECT_EQ(find(r, "Close").disposition, Disposition::Slower);
  // Screening caps: 3 iterations or 5 ms — the 10 ms candidate ran once.
  EXPECT_EQ(find(r, "Slow").stats.iterations, 1);
  EXPECT_EQ(slow->calls, 1 + 1);  // warmup, screening
}

TEST_F(TunerFixture, ScreeningCutsACandidateFarSlowerThanDefaultAfterOneSample) {
  provider->add("Default", 1.0);
  auto far = provider->add("Far", 3.5);      // over 2 × 1.5 × Default's 1 ms
  auto near = provider->add("Near", 2.9);    // under it: cut after three samples instead
  auto close = provider->add("Close", 1.2);  // within the keep bar: measured
  options.timing.screening_iterations = 10;
  options.timing.screening_duration_ms = 1000;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(far->calls, 1 + 1);  // warmup, one screening sample
  EXPECT_EQ(find(r, "Far").disposition, Disposition::ScreenedOut);
  EXPECT_EQ(find(r, "Far").stats.iterations, 1);
  EXPECT_NE(find(r, "Far").reason.find("cut after its first sample: 3.5 ms > 2 x 1.5 x 1 ms"),
            std::string::npos)
      << find(r, "Far").reason;
  EXPECT_EQ(near->calls, 1 + 3);  // warmup, three samples (the cut below)
  EXPECT_EQ(find(r, "Near").disposition, Disposition::ScreenedOut);
  EXPECT_GT(close->calls, 1 + 10);
  EXPECT_EQ(find(r, "Close").disposition, Disposition::Slower);
}

TEST_F(TunerFixture, ScreeningCutsACandidatePastTheKeepBarAfterThreeSamples) {
  provider->add("Default", 1.0);
  auto past = provider->add("Past", 1.6);      // over 1.5 × Default's 1 ms on its first three
  auto within = provider->add("Within", 1.4);  // under the keep bar: screened in full
  auto slow_start = provider->add("SlowStart", 1.0);
  slow_start->time_ms = [](int call) { return call == 1 ? 2.0 : 1.0; };  // its first sample
  options.timing.screening_iterations = 10;
  options.timing.screening_duration_ms = 1000;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(past->calls, 1 + 3);  // warmup, three screening samples
  EXPECT_EQ(find(r, "Past").disposition, Disposition::ScreenedOut);
  EXPECT_EQ(find(r, "Past").stats.iterations, 3);
  EXPECT_NE(find(r, "Past").reason.find(
                "screening cut after 3 samples: their median 1.6 ms > 1.5 x 1 ms of Default"),
            std::string::npos)
      << find(r, "Past").reason;
  EXPECT_GT(within->calls, 1 + 10);  // screened in full, then measured
  EXPECT_EQ(find(r, "Within").disposition, Disposition::Slower);
  // One slow sample among the first three is not their median: screened in full, then measured.
  EXPECT_GT(slow_start->calls, 1 + 10);
  EXPECT_NE(find(r, "SlowStart").disposition, Disposition::ScreenedOut)
      << find(r, "SlowStart").reason;
}

TEST_F(TunerFixture, ScreeningCutFollowsTheKeepBar) {
  // A keep factor that keeps everyone (as GPU tests set it to measure every candidate) cuts no one.
  provider->add("Default", 1.0);
  auto slow = provider->add("Slow", 40.0);
  options.timing.screening_iterations = 10;
  options.timing.screening_duration_ms = 1000;
  options.timing.screening_keep_factor = 1e9;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_GT(slow->calls, 1 + 10);  // screened in full, then measured
  EXPECT_EQ(find(r, "Slow").disposition, Disposition::Slower);
}

TEST_F(TunerFixture, NonFiniteOptionsAreRefusedByName) {
  // NaN passes "at least 0" checks; as a warmup cap it made a phase that never ended.
  options.timing.max_warmup_duration_ms = std::numeric_limits<double>::quiet_NaN();
  try {
    Tuner tuner(backend, registry, options);
    FAIL() << "a NaN option was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("max_warmup_duration_ms must be a finite number"),
              std::string::npos)
        << e.what();
  }
  options.timing.max_warmup_duration_ms = 0;
  options.timing.rotating_buffer_mb = std::numeric_limits<double>::infinity();
  EXPECT_THROW(Tuner(backend, registry, options), InputError);
}

TEST_F(TunerFixture, AKeepFactorOfZeroIsNoBar) {
  provider->add("Default", 1.0);
  auto slow = provider->add("Slow", 3.0);
  options.timing.screening_keep_factor = 0;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_GT(slow->calls, 1 + 10);  // screened, then measured
  EXPECT_EQ(find(r, "Slow").disposition, Disposition::Slower) << find(r, "Slow").reason;
}

TEST_F(TunerFixture, ScreeningHonoursBothCaps) {
  provider->add("Default", 1.0);
  auto c = provider->add("C", 1.0);
  options.timing.screening_iterations = 3;
  options.timing.screening_duration_ms = 1000;
  options.timing.max_tuning_iterations = 10;
  options.check = parse_numerical_check("off");
  tune();
  EXPECT_EQ(c->calls, 1 + 3 + 10 + 5);  // warmup, screening, measurement, confirmation
  c->calls = 0;
  options.timing.screening_iterations = 100;
  options.timing.screening_duration_ms = 2.5;  // 2 iterations of 1 ms fit
  tune();
  EXPECT_EQ(c->calls, 1 + 2 + 10 + 5);
}

TEST_F(TunerFixture, WarmupHonoursBothCaps) {
  provider->add("Default", 1.0);
  auto c = provider->add("C", 1.0);
  options.timing.max_tuning_iterations = 10;
  options.timing.max_warmup_iterations = 4;
  tune();
  // warmup, screening, check (the tuned scalars and the others), measurement, confirmation
  EXPECT_EQ(c->calls, 4 + 3 + 2 + 10 + 5);
  c->calls = 0;
  options.timing.max_warmup_iterations = 0;
  options.timing.max_warmup_duration_ms = 2.5;
  tune();
  EXPECT_EQ(c->calls, 2 + 3 + 2 + 10 + 5);
  c->calls = 0;
  options.timing.max_warmup_iterations = 1;
  options.timing.max_warmup_duration_ms = 100;
  tune();
  EXPECT_EQ(c->calls, 1 + 3 + 2 + 10 + 5);
  c->calls = 0;
  options.timing.max_warmup_iterations = 0;  // no warmup at all
  options.timing.max_warmup_duration_ms = 0;
  tune();
  EXPECT_EQ(c->calls, 3 + 2 + 10 + 5);
}

TEST_F(TunerFixture, MeasurementDurationCap) {
  provider->add("Default", 2.0);
  options.timing.max_tuning_iterations = 100;
  options.timing.max_tuning_duration_ms = 20;
  const TuningReport r = tune();
  EXPECT_EQ(r.default_stats.iterations, 10);
}

TEST_F(TunerFixture, MeasurementInterleavesSurvivorsSoThatDriftFallsOnAll) {
  // The device runs 20% faster for the first 10 ms of the measurement phase (as a GPU fresh from
  // the idle numerical checks did). Measured one after the other,
  // Default (first) would take the whole head start and beat a candidate 5% faster than it.
  double boost_start = -1;
  auto factor = [&] {
    return boost_start >= 0 && backend.clock.now_ms - boost_start < 10 ? 0.8 : 1.0;
  };
  auto d = provider->add("Default");
  d->time_ms = [&](int call) {
    if (call == 1 + 3 + 1) boost_start = backend.clock.now_ms;  // warmup, screening, check
    return 1.0 * factor();
  };
  auto fast = provider->add("Fast");
  fast->time_ms = [&](int) { return 0.95 * factor(); };
  options.timing.confirmation_contenders = 0;  // the measurement alone decides
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Fast");
  EXPECT_EQ(r.default_stats.iterations, 20);
  EXPECT_EQ(find(r, "Fast").stats.iterations, 20);
}

// A candidate whose samples came out 10% low in the measurement (the luck that made it the fastest
// of the finalists) and are then at its true speed, Default's.
std::shared_ptr<testing::FakeSolutionState> add_lucky(FakeProvider& provider, std::string name,
                                                      int lucky_calls) {
  auto lucky = provider.add(std::move(name));
  lucky->time_ms = [lucky_calls](int call) { return call < lucky_calls ? 0.9 : 1.0; };
  return lucky;
}

TEST_F(TunerFixture, ConfirmationDecidesOnFreshSamples) {
  provider->add("Default", 1.0);
  options.timing.screening_iterations = 0;
  options.check = parse_numerical_check("off");
  auto lucky = add_lucky(*provider, "Lucky", 1 + 20);  // warmup, measurement
  options.timing.confirmation_contenders = 0;
  TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Lucky");  // what the measurement alone picks

  lucky->calls = 0;
  options.timing.confirmation_contenders = 2;
  r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_EQ(lucky->calls, 1 + 20 + 10);  // warmup, measurement, confirmation at half the caps
  // The reported statistics are the confirmation's: 10 samples, at the true speed.
  EXPECT_EQ(find(r, "Lucky").stats.iterations, 10);
  EXPECT_DOUBLE_EQ(find(r, "Lucky").stats.median_ms, 1.0);
  EXPECT_EQ(r.default_stats.iterations, 10);
}

TEST_F(TunerFixture, ConfirmationCanPickTheRunnerUp) {
  provider->add("Default", 1.0);
  options.timing.screening_iterations = 0;
  options.check = parse_numerical_check("off");
  auto lucky = add_lucky(*provider, "Lucky", 1 + 20);
  provider->add("Steady", 0.95);  // second in the measurement, truly the fastest
  provider->add("Third", 0.97);   // not among the 2 contenders: keeps its measurement
  options.timing.confirmation_contenders = 2;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Steady");
  EXPECT_EQ(find(r, "Lucky").disposition, Disposition::Slower);
  EXPECT_EQ(find(r, "Third").stats.iterations, 20);
  EXPECT_NE(find(r, "Third").reason.find("not among the 2 fastest confirmed"), std::string::npos)
      << find(r, "Third").reason;
  lucky->calls = 0;
  options.timing.confirmation_contenders = 1;  // only Lucky is confirmed, and loses to Default
  EXPECT_EQ(tune().winner, "Default");
}

TEST_F(TunerFixture, AContenderFailingInConfirmationLeavesTheVerdictToTheMeasurement) {
  provider->add("Default", 1.0);
  options.timing.screening_iterations = 0;
  options.check = parse_numerical_check("off");
  options.timing.confirmation_contenders = 1;
  auto flaky = provider->add("Flaky");  // the fastest, until its confirmation
  flaky->time_ms = [](int call) {
    if (call >= 1 + 20) throw std::runtime_error("lost");  // warmup, measurement
    return 0.9;
  };
  provider->add("Second", 0.95);
  std::map<std::string, int> reported;
  const TuningReport r =
      Tuner(backend, registry, options).tune(problem, [&](const CandidateReport& c, int, int) {
        ++reported[c.solution];
      });
  ASSERT_TRUE(r.ok()) << r.error;
  // Not Default: Second beat it in the measurement, whose samples still stand.
  EXPECT_EQ(r.winner, "Second");
  EXPECT_EQ(find(r, "Second").stats.iterations, 20);
  EXPECT_EQ(r.default_stats.iterations, 20);
  EXPECT_EQ(find(r, "Flaky").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Flaky").reason.find("confirmation"), std::string::npos)
      << find(r, "Flaky").reason;
  EXPECT_EQ(reported, (std::map<std::string, int>{{"Default", 1}, {"Flaky", 1}, {"Second", 1}}));
}

TEST_F(TunerFixture, DefaultFailingInConfirmationEndsTheProblem) {
  auto d = provider->add("Default");
  d->time_ms = [](int call) {
    if (call >= 1 + 100 + 20) throw std::runtime_error("lost");  // warmup, settle, measurement
    return 1.0;
  };
  provider->add("Fast", 0.5);
  options.timing.screening_iterations = 0;
  options.check = parse_numerical_check("off");
  const TuningReport r = tune();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("confirmation threw: lost"), std::string::npos) << r.error;
  EXPECT_EQ(find(r, "Fast").disposition, Disposition::Failed);
}

TEST_F(TunerFixture, ConfirmationOfALongGemmStillSamplesEveryRound) {
  // At the default caps (100 iterations, 30 ms) half the duration cap holds five 3 ms samples,
  // too few for the eight rounds; the confirmation gets as long as the measurement instead.
  options.timing.max_tuning_iterations = TimingPolicy{}.max_tuning_iterations;
  options.timing.max_tuning_duration_ms = TimingPolicy{}.max_tuning_duration_ms;
  provider->add("Default", 3.0);
  provider->add("Fast", 2.5);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Fast");
  EXPECT_GE(r.default_stats.iterations, 8);
  EXPECT_GE(find(r, "Fast").stats.iterations, 8);
}

TEST_F(TunerFixture, ThePairedTestPairsTheRoundsBothRanWhenOneRanMore) {
  // A 5 ms GEMM at the default caps (30 ms in 8 rounds, one sample a round): the candidate, 2%
  // faster, runs 7 rounds and Default 6. The device's speed moves by up to 10% from round to
  // round, which hides the gain from the pooled test; only the paired one can see it.
  options.timing.max_tuning_iterations = 100;
  options.timing.max_tuning_duration_ms = 30;
  options.timing.screening_iterations = 0;
  options.timing.settle_duration_ms = 0;
  options.timing.confirmation_contenders = 0;
  options.check = parse_numerical_check("off");
  const std::vector<double> drift{1.00, 1.10, 0.95, 1.05, 0.92, 1.08, 1.00, 0.97};
  const auto in_round = [drift](double ms) {
    return [drift, ms](int call) {  // call 0 is the warm-up, then one call a round
      return ms * drift[static_cast<std::size_t>(std::max(call - 1, 0)) % drift.size()];
    };
  };
  provider->add("Default")->time_ms = in_round(5.0);
  provider->add("Fast")->time_ms = in_round(4.9);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.default_stats.iterations, 6);
  EXPECT_EQ(find(r, "Fast").stats.iterations, 7);
  EXPECT_FALSE(beats_default(std::vector<double>{4.9, 5.39, 4.655, 5.145, 4.508, 5.292, 4.9},
                             std::vector<double>{5.0, 5.5, 4.75, 5.25, 4.6, 5.4}, 2.0));
  EXPECT_EQ(r.winner, "Fast");
}

TEST(ConfirmationCaps, HalfTheMeasurementsRaisedForLongGemmsUpToTheMeasurements) {
  TimingPolicy p;  // 100 iterations, 30 ms
  EXPECT_EQ(confirmation_caps(p).max_iterations, 50);
  EXPECT_DOUBLE_EQ(confirmation_caps(p).max_duration_ms, 15);
  EXPECT_DOUBLE_EQ(confirmation_caps(p, 10).max_duration_ms, 15);
  EXPECT_DOUBLE_EQ(confirmation_caps(p, 20).max_duration_ms, 20);
  EXPECT_DOUBLE_EQ(confirmation_caps(p, 50).max_duration_ms, 30);
  p.max_tuning_duration_ms = 0;  // no duration cap stays none
  EXPECT_DOUBLE_EQ(confirmation_caps(p, 50).max_duration_ms, 0);
  p.max_tuning_iterations = 0;
  EXPECT_TRUE(confirmation_caps(p, 50).empty());
}

TEST_F(TunerFixture, ProvidersLimitTheSearchButDefaultAlwaysRuns) {
  provider->add("Default", 2.0);
  provider->add("Fast", 1.0);
  auto other = std::make_shared<FakeProvider>(backend.clock, "other");
  other->add("Faster", 0.5);
  registry.add(other);
  options.search.providers = {"other"};
  options.search.max_workspace_bytes = 4u << 20;
  TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Faster");
  ASSERT_EQ(r.candidates.size(), 2u);  // Default (from "fake") and Faster; not Fast
  find(r, "Default");
  // Asked for under the search's limits (cuBLAS's Default under the workspace limit).
  EXPECT_EQ(provider->reference_workspace_bytes, 4u << 20);
  options.search.providers = {"fake"};
  r = tune();
  EXPECT_EQ(r.winner, "Fast");
  EXPECT_EQ(r.candidates.size(), 2u);
  options.search.providers = {"othr"};
  try {
    tune();
    ADD_FAILURE() << "a misspelt provider must be an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'othr'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fake, other"), std::string::npos) << e.what();
  }
}

TEST_F(TunerFixture, DefaultIsRequired) {
  provider->add("Other", 1.0);
  const TuningReport r = tune();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("Default"), std::string::npos);
  ASSERT_EQ(r.candidates.size(), 1u);
}

TEST_F(TunerFixture, UnsupportedDefaultIsAnError) {
  auto d = provider->add("Default", 1.0);
  d->support = Support::no("no fp8 here");
  provider->add("Other", 1.0);
  const TuningReport r = tune();
  EXPECT_NE(r.error.find("no fp8 here"), std::string::npos) << r.error;
  EXPECT_TRUE(r.winner.empty());
}

TEST_F(TunerFixture, ThrowingDefaultIsAnErrorNotACrash) {
  provider->add("Default", 1.0, Behaviour::Throw);
  provider->add("Other", 1.0);
  const TuningReport r = tune();
  EXPECT_NE(r.error.find("kaboom"), std::string::npos) << r.error;
  EXPECT_EQ(r.candidates.size(), 2u);
  EXPECT_EQ(find(r, "Default").disposition, Disposition::Failed);
  EXPECT_EQ(find(r, "Other").disposition, Disposition::Failed);
  EXPECT_NE(find(r, "Other").reason.find("not tuned"), std::string::npos);
}

TEST_F(TunerFixture, OperandsTooLargeForMemoryIsAnError) {
  FakeBackend small(1 << 20, 1 << 20);  // 1 MiB of memory
  Registry reg;
  auto p = std::make_shared<FakeProvider>(small.clock);
  p->add("Default", 1.0);
  reg.add(p);
  problem =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 4096, 4096, 4096);
  const TuningReport r = Tuner(small, reg, options).tune(problem);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("MiB"), std::string::npos) << r.error;
  EXPECT_EQ(small.allocations, 0);
}

TEST_F(TunerFixture, InvalidProblemIsAnError) {
  provider->add("Default", 1.0);
  problem.lda = 2;  // smaller than m
  EXPECT_NE(tune().error.find("invalid problem"), std::string::npos);
}

TEST_F(TunerFixture, DuplicateNamesCompeteOnce) {
  provider->add("Default", 2.0);
  provider->add("Twin", 1.0);
  provider->add("Twin", 0.5);
  const TuningReport r = tune();
  EXPECT_EQ(r.winner, "Twin");
  EXPECT_DOUBLE_EQ(r.winner_stats.median_ms, 1.0);
  EXPECT_EQ(r.candidates.back().disposition, Disposition::Failed);
}

TEST_F(TunerFixture, ProgressReportsEveryCandidate) {
  provider->add("Default", 1.0);
  provider->add("A", 1.0);
  provider->add("B", 10.0);
  auto u = provider->add("U");
  u->support = Support::no("no");
  std::vector<int> done;
  int total = 0;
  Tuner(backend, registry, options).tune(problem, [&](const CandidateReport&, int d, int t) {
    done.push_back(d);
    total = t;
  });
  EXPECT_EQ(total, 4);
  EXPECT_EQ(done, (std::vector<int>{1, 2, 3, 4}));
}

TEST_F(TunerFixture, ProgressGivesMeasuredCandidatesTheirFinalDisposition) {
  // `gemmtune tune -v` prints what progress reports: the winner must not read "slower".
  provider->add("Default", 2.0);
  provider->add("Fast", 1.0);
  provider->add("Medium", 1.5);
  std::map<std::string, CandidateReport> seen;
  const TuningReport r =
      Tuner(backend, registry, options).tune(problem, [&](const CandidateReport& c, int, int) {
        seen[c.solution] = c;
      });
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen["Fast"].disposition, Disposition::Winner);
  EXPECT_EQ(seen["Medium"].disposition, Disposition::Slower);
  EXPECT_EQ(seen["Default"].disposition, Disposition::Slower);
  EXPECT_DOUBLE_EQ(seen["Fast"].stats.median_ms, 1.0);

  // Default kept: the fastest candidate's report says why.
  options.min_gain = 0.6;
  options.trial_min_gain = 0;  // else its 50% lead would win in a trial
  seen.clear();
  const TuningReport kept =
      Tuner(backend, registry, options).tune(problem, [&](const CandidateReport& c, int, int) {
        seen[c.solution] = c;
      });
  ASSERT_TRUE(kept.ok()) << kept.error;
  EXPECT_EQ(seen["Default"].disposition, Disposition::Winner);
  EXPECT_EQ(seen["Fast"].disposition, Disposition::Slower);
  EXPECT_NE(seen["Fast"].reason.find("minimum gain"), std::string::npos) << seen["Fast"].reason;
}

TEST_F(TunerFixture, RotationFollowsTheCacheByDefault) {
  provider->add("Default", 1.0);
  options.timing.rotating_buffer_mb.reset();  // 2 × 1 MiB LLC of the fake backend
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok());
  EXPECT_GE(r.rotation.footprint_bytes, 2u << 20);
  EXPECT_GT(r.rotation.copies, 100);
  EXPECT_FALSE(r.rotation.flush);
}

TEST(BeatsDefault, RobustToOutliers) {
  std::vector<double> reference(50, 2.0), challenger(50, 1.0);
  challenger[3] = 1000;  // one outlier must not hide a 2× gain
  EXPECT_TRUE(beats_default(challenger, reference, 2.0));
  EXPECT_FALSE(beats_default(reference, challenger, 2.0));
  EXPECT_FALSE(beats_default({}, reference, 2.0));
}

// One sample measures no spread: its standard error would be 0, and any lower median would
// pass as beyond the noise (a GEMM of 30 ms or more gets one sample a phase). It is taken as 2%
// of its time: a 2% lead is not beyond it, a 40× one (OpenBLAS against the CPU's Default) is.
TEST(BeatsDefault, OneSampleIsTakenToVaryByTwoPercent) {
  const std::vector<double> one_fast{39.3}, one_slow{40.1};
  EXPECT_FALSE(beats_default(one_fast, one_slow, 2.0));
  EXPECT_FALSE(beats_default(one_fast, std::vector<double>(20, 40.1), 2.0));
  EXPECT_FALSE(beats_default(std::vector<double>(20, 39.3), one_slow, 2.0));
  EXPECT_TRUE(beats_default(std::vector<double>{1.0}, std::vector<double>{45.0}, 2.0));
  EXPECT_TRUE(beats_default(std::vector<double>(20, 1.14), std::vector<double>{45.7}, 2.0));
  EXPECT_TRUE(beats_default(std::vector<double>{39.3, 39.4}, std::vector<double>{40.1, 40.2}, 2.0));
}

TEST(BeatsDefaultPaired, SeesASmallGainThroughDriftThePooledTestCannot) {
  // The device's speed drifts by ±10% from round to round; the challenger is 1% faster in each.
  const std::vector<double> drift{1.00, 1.10, 0.95, 1.05, 0.92, 1.08, 1.00, 0.97};
  std::vector<double> reference, challenger, reference_samples, challenger_samples;
  for (double d : drift) {
    reference.push_back(10.0 * d);
    challenger.push_back(9.9 * d);
    for (int i = 0; i < 12; ++i) {
      reference_samples.push_back(10.0 * d);
      challenger_samples.push_back(9.9 * d);
    }
  }
  EXPECT_FALSE(beats_default(challenger_samples, reference_samples, 2.0));
  EXPECT_TRUE(beats_default_paired(challenger, reference, 2.0));
  EXPECT_FALSE(beats_default_paired(reference, challenger, 2.0));
}

TEST(BeatsDefaultPaired, NoiseAroundASmallGainIsNotAGain) {
  // Per-round ratios of 0.97, 1.02, 0.98, 1.03, ...: a mean gain of 0.5% inside ±2.5% noise.
  const std::vector<double> reference(8, 10.0);
  const std::vector<double> challenger{9.7, 10.2, 9.8, 10.3, 9.7, 10.2, 9.8, 9.9};
  EXPECT_FALSE(beats_default_paired(challenger, reference, 2.0));
}

TEST(BeatsDefaultPaired, NeedsFourRoundsAndPositiveTimes) {
  EXPECT_FALSE(
      beats_default_paired(std::vector<double>{1, 1, 1}, std::vector<double>{2, 2, 2}, 2.0));
  EXPECT_TRUE(beats_default_paired(std::vector<double>{1, 1.01, 1, 1},
                                   std::vector<double>{2, 2, 2, 2}, 2.0));
  EXPECT_FALSE(
      beats_default_paired(std::vector<double>{1, 0, 1, 1}, std::vector<double>{2, 2, 2, 2}, 2.0));
  EXPECT_FALSE(beats_default_paired({}, std::vector<double>{2, 2, 2, 2}, 2.0));
}

TEST(BeatsDefaultPaired, FewerRoundsRaiseTheBar) {
  // A gain of 1.75% at 3.6 standard errors over 4 rounds: beyond 3 standard errors, but not
  // beyond the 4.5 that keep a 4-round verdict as sure as an 8-round one at 3.
  const std::vector<double> four{9.8, 9.9, 9.7, 9.9};
  const std::vector<double> reference(4, 10.0);
  EXPECT_FALSE(beats_default_paired(four, reference, 3.0));
  EXPECT_TRUE(beats_default_paired(four, reference, 2.0));
  // The same per-round gains over 8 rounds (5.5 standard errors) pass at 3.
  std::vector<double> eight = four;
  eight.insert(eight.end(), four.begin(), four.end());
  EXPECT_TRUE(beats_default_paired(eight, std::vector<double>(8, 10.0), 3.0));
  // Rounds one side skipped count as missing, not as rounds.
  std::vector<double> four_of_eight = four;
  four_of_eight.resize(8, kNoRound);
  EXPECT_FALSE(beats_default_paired(four_of_eight, std::vector<double>(8, 10.0), 3.0));
}

TEST(BeatsDefaultPaired, PairsOnlyTheRoundsBothRan) {
  // Default's last round is missing, the challenger's fourth: three rounds pair, too few.
  EXPECT_FALSE(beats_default_paired(std::vector<double>{1, 1, 1, kNoRound, 1},
                                    std::vector<double>{2, 2, 2, 2, kNoRound}, 2.0));
  // Four rounds pair; the unpaired ones, however slow, count for nothing.
  EXPECT_TRUE(beats_default_paired(std::vector<double>{1, 1.01, 1, 1, 50},
                                   std::vector<double>{2, 2, 2, 2, kNoRound}, 2.0));
  EXPECT_TRUE(beats_default_paired(std::vector<double>{1, 1.01, kNoRound, 1, 1},
                                   std::vector<double>{2, 2, 0.1, 2, 2}, 2.0));
}

// The burst check: where Default is short (here below 5 ms), the challenger about to replace it
// is timed again in bursts of back-to-back iterations. `BehindItself` is 20% ahead with an event
// between iterations but 0.5 ms slower behind another run of itself: 1.275 ms an iteration in a
// burst of 20, against Default's 1.0.
TEST_F(TunerFixture, BurstCheckTurnsDownAWinnerSlowerBackToBack) {
  options.timing.burst_check_below_ms = 5;
  provider->add("Default", 1.0);
  provider->add("BehindItself", 0.8)->back_to_back_extra_ms = 0.5;
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  const CandidateReport& turned_down = find(r, "BehindItself");
  EXPECT_EQ(turned_down.disposition, Disposition::Slower);
  EXPECT_NE(turned_down.reason.find(
                "median 20.00% below Default's per iteration, but slower than Default beyond the "
                "noise run back to back (8 bursts of 20 runs: back to back 27.50% above Default's "
                "(1.275 ms a run against 1); from a graph 27.50% above Default's (1.275 ms a run "
                "against 1))"),
            std::string::npos)
      << turned_down.reason;
  // Its confirmation's times stay what it reports, not the bursts'.
  EXPECT_NEAR(turned_down.stats.median_ms, 0.8, 1e-9);
  EXPECT_NE(describe_phases(r).find(", burst "), std::string::npos) << describe_phases(r);
}

TEST_F(TunerFixture, BurstCheckTakesTheNextChallengerThatKeepsUpBackToBack) {
  options.timing.burst_check_below_ms = 5;
  provider->add("Default", 1.0);
  provider->add("BehindItself", 0.8)->back_to_back_extra_ms = 0.5;
  provider->add("Steady", 0.9);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Steady");
  EXPECT_NE(
      find(r, "Steady").reason.find("8 bursts of 20 runs: back to back 10.00% below Default's"),
      std::string::npos)
      << find(r, "Steady").reason;
  EXPECT_NE(find(r, "BehindItself").reason.find("beyond the noise"), std::string::npos);
}

TEST_F(TunerFixture, BurstCheckNeedsTheNoTrialLeadOfTheNextChallenger) {
  options.timing.burst_check_below_ms = 5;
  options.timing.trial_turn_ms = 20;  // a trial fits these 1 ms GEMMs
  provider->add("Default", 1.0);
  provider->add("BehindItself", 0.8)->back_to_back_extra_ms = 0.5;
  provider->add("TwoPercent", 0.98);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_NE(find(r, "TwoPercent")
                .reason.find("2.00% below Default's, less than the 3.00% that replaces Default "
                             "without a trial, after a faster challenger was slower back to back"),
            std::string::npos)
      << find(r, "TwoPercent").reason;
}

TEST_F(TunerFixture, BurstCheckTurningDownATrialWinnerKeepsDefault) {
  // The trial winner is slower back to back. Default's samples are then the trial's, which the
  // runner-up's confirmation cannot be compared with: Default stays, however far ahead of its
  // trial samples the runner-up seems (Default slows to 1.05 ms after 3 ms back to back, as in
  // the trial's 20 ms turns, so the runner-up's 0.992 ms would pass the 3% bar against them).
  options.timing.burst_check_below_ms = 5;
  options.timing.trial_turn_ms = 20;  // 20 iterations of these 1 ms GEMMs a turn
  time_by_turns(*provider->add("Default"), backend.clock, 3.0,
                [](double streak_ms, int) { return streak_ms < 3.0 ? 1.0 : 1.05; });
  provider->add("OnePercent", 0.99)->back_to_back_extra_ms = 0.5;
  provider->add("RunnerUp", 0.992);
  const TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_NE(find(r, "OnePercent").reason.find("but slower than Default beyond the noise"),
            std::string::npos)
      << find(r, "OnePercent").reason;
  EXPECT_EQ(find(r, "RunnerUp").disposition, Disposition::Slower);
}

TEST_F(TunerFixture, BurstCheckLetsThroughAWinnerThatKeepsUpAndRunsOnlyWhereAsked) {
  provider->add("Default", 1.0);
  auto fast = provider->add("Fast", 0.8);
  fast->back_to_back_extra_ms = 0.05;  // 0.8475 ms an iteration back to back: still ahead
  options.timing.burst_check_below_ms = 5;
  TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Fast");
  EXPECT_NE(find(r, "Fast").reason.find("back to back 15.25% below Default's (0.8475 ms a run "
                                        "against 1); from a graph 15.25% below Default's"),
            std::string::npos)
      << find(r, "Fast").reason;

  // Slower back to back, but no check: Default at or above the threshold, the check off, or a
  // cache flush before every iteration (which a burst cannot have).
  fast->back_to_back_extra_ms = 0.5;
  for (const double below_ms : {1.0, 0.0}) {
    options.timing.burst_check_below_ms = below_ms;
    const int calls = fast->calls;
    r = tune();
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.winner, "Fast") << below_ms;
    EXPECT_EQ(find(r, "Fast").reason.find("back to back"), std::string::npos) << below_ms;
    EXPECT_LT(fast->calls - calls, 200) << below_ms;  // no 160 iterations of bursts either
  }
  options.timing.burst_check_below_ms = 5;
  options.timing.flush_cache = true;
  r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Fast");
}

TEST_F(TunerFixture, BurstCheckTurnsDownAWinnerSlowerFromAGraphAlone) {
  // Ahead per iteration and in bursts, 0.5 ms slower a run replayed from captured runs.
  options.timing.burst_check_below_ms = 5;
  provider->add("Default", 1.0);
  provider->add("GraphSlow", 0.8)->graph_extra_ms = 0.5;
  TuningReport r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "Default");
  EXPECT_NE(find(r, "GraphSlow")
                .reason.find("back to back 20.00% below Default's (0.8 ms a run against 1); from "
                             "a graph 30.00% above Default's (1.3 ms a run against 1))"),
            std::string::npos)
      << find(r, "GraphSlow").reason;
  EXPECT_EQ(backend.captures, 2);  // Default's runs and the challenger's, once each

  // A backend that cannot capture (the CPU's) has the bursts alone decide.
  backend.can_capture = false;
  r = tune();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.winner, "GraphSlow");
  EXPECT_NE(find(r, "GraphSlow")
                .reason.find("back to back 20.00% below Default's (0.8 ms a run "
                             "against 1); no graphs on this backend"),
            std::string::npos)
      << find(r, "GraphSlow").reason;
}

TEST_F(TunerFixture, DefaultFailingInTheBurstCheckEndsTheProblem) {
  options.timing.burst_check_below_ms = 5;
  auto reference = provider->add("Default", 1.0);
  provider->add("Fast", 0.8);
  // Default fails once it runs far behind itself with no timer between: in a burst (the numerical
  // check's few untimed runs stay short of that).
  reference->time_ms = [&clock = backend.clock, state = reference.get()](int) {
    if (clock.runs_since_begin >= 5) state->behaviour = Behaviour::Fail;
    return 1.0;
  };
  const TuningReport r = tune();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'Default' failed: burst: status 13"), std::string::npos) << r.error;
  EXPECT_EQ(find(r, "Fast").disposition, Disposition::Failed);
}

}  // namespace
}  // namespace gemmtune
