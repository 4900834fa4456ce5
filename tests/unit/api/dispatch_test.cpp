// Dispatch: a results file's winner is what runs (asserted by counting runs); unknown problems,
// entries edited to Default, names this machine cannot run and a disabled Context run Default.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {
namespace {

class Dispatch : public ::testing::Test {
 protected:
  TempDir dir;
  Counts counts;
  Log log;
};

TEST_F(Dispatch, RunsTheTunedSolutionAndDefaultForUnknownProblems) {
  FloatGemm tuned(64, 48, 32), unknown(40, 24, 16);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      tuned.problem.params_signature() + ",Test_Fast,0.01\n");
  Context ctx(test_options(dir, counts, log));
  EXPECT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  EXPECT_EQ(ctx.load_report().entries, 1u);

  const Lookup l = ctx.lookup(tuned.problem);
  EXPECT_EQ(l.solution, "Test_Fast");
  EXPECT_EQ(l.source, Source::Tuned);
  ASSERT_TRUE(tuned.run(ctx).ok);
  ASSERT_TRUE(tuned.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 2);
  EXPECT_EQ(counts.runs_of("Default"), 0);
  EXPECT_LT(tuned.max_error(), 1e-4);

  EXPECT_EQ(ctx.lookup(unknown.problem).solution, "Default");
  EXPECT_EQ(ctx.lookup(unknown.problem).source, Source::Untuned);
  ASSERT_TRUE(unknown.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 1);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 2);
  EXPECT_LT(unknown.max_error(), 1e-4);
  EXPECT_EQ(counts.enumerations_of(unknown.problem), 0) << "tuning is off: nothing is tuned";
}

TEST_F(Dispatch, AnEntryEditedToDefaultRunsDefault) {
  FloatGemm g(32, 32, 32);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + ",Default,0.01\n");
  Context ctx(test_options(dir, counts, log));
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Default");
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Tuned);
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 1);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 0);
}

TEST_F(Dispatch, ANameThisMachineCannotRunFallsBackToDefaultWithAWarning) {
  FloatGemm g(32, 16, 8);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + ",Gone_Kernel_7,0.01\n");
  Context ctx(test_options(dir, counts, log));
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Default");
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Fallback);
  ASSERT_TRUE(g.run(ctx).ok);
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 2);
  EXPECT_EQ(log.count_containing("Gone_Kernel_7"), 1u) << log.all();
}

// A "cpu" provider whose Default depends on the workspace limit, as cuBLASLt's heuristic pick does
// for GemmAndBias and ScaledGemm: each Default says, when it runs, the limit it was built under.
class LimitedDefaultProvider final : public SolutionProvider {
 public:
  static constexpr std::size_t kUnlimited = SearchOptions{}.max_workspace_bytes;
  explicit LimitedDefaultProvider(std::atomic<std::size_t>& ran_under) : ran_under_(ran_under) {}
  std::string_view name() const override { return "cpu"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions& options) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(reference(p, options));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name != kDefaultSolutionName) return nullptr;
    return std::make_unique<Limited>(kUnlimited, ran_under_);
  }
  std::unique_ptr<Solution> reference(const Problem&, const SearchOptions& options) override {
    return std::make_unique<Limited>(options.max_workspace_bytes, ran_under_);
  }

 private:
  class Limited final : public Solution {
   public:
    Limited(std::size_t limit, std::atomic<std::size_t>& ran_under)
        : limit_(limit), ran_under_(ran_under), inner_(std::string(kDefaultSolutionName)) {}
    const std::string& name() const override { return inner_.name(); }
    Support supports(const Problem& p) const override { return inner_.supports(p); }
    RunStatus run(const Problem& p, const Operands& o, void* stream) override {
      ran_under_ = limit_;
      return inner_.run(p, o, stream);
    }

   private:
    std::size_t limit_;
    std::atomic<std::size_t>& ran_under_;
    FastSolution inner_;
  };
  std::atomic<std::size_t>& ran_under_;
};

TEST_F(Dispatch, DefaultIsRebuiltUnderTheContextsWorkspaceLimit) {
  // Tuned with --workspace-mb 4 and run by a Context with GEMMTUNE_WORKSPACE_MB=4: the Default
  // that runs is the one the tuning measured, not the one a 32 MiB limit would pick.
  FloatGemm stored(32, 16, 8), untuned(24, 16, 8);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      stored.problem.params_signature() + ",Default,0.01\n");
  std::atomic<std::size_t> ran_under{0};
  Options o = test_options(dir, counts, log);
  o.providers = {std::make_shared<LimitedDefaultProvider>(ran_under)};
  o.workspace_mb = 4;
  Context ctx(o);
  ASSERT_TRUE(stored.run(ctx).ok);
  EXPECT_EQ(ran_under.load(), std::size_t{4} << 20);
  ran_under = 0;
  ASSERT_TRUE(untuned.run(ctx).ok);
  EXPECT_EQ(ran_under.load(), std::size_t{4} << 20);
  EXPECT_LT(untuned.max_error(), 1e-4);
}

// A provider that cannot rebuild its own names here: from_name throws (a library call that errs
// on this device), which must degrade like any name that cannot run.
class ThrowingProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "thrower"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    return {};
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name.starts_with("Thrower_")) throw std::runtime_error("cannot rebuild on this device");
    return nullptr;
  }
};

TEST_F(Dispatch, ANameWhoseRebuildThrowsFallsBackToDefaultWithAWarning) {
  FloatGemm g(32, 16, 8);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + ",Thrower_X,0.01\n");
  Options o = test_options(dir, counts, log);
  o.providers.insert(o.providers.begin(), std::make_shared<ThrowingProvider>());
  Context ctx(o);
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Default");
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Fallback);
  const RunStatus s = g.run(ctx);
  ASSERT_TRUE(s.ok) << s.error;
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 2);
  EXPECT_LT(g.max_error(), 1e-4);
  // One warning, naming the problem, the name and the provider's reason.
  EXPECT_EQ(log.count_containing("Thrower_X"), 1u) << log.all();
  EXPECT_EQ(log.count_containing(g.problem.params_signature()), 1u) << log.all();
  EXPECT_EQ(log.count_containing("cannot rebuild on this device"), 1u) << log.all();
}

TEST_F(Dispatch, DisabledRunsDefaultAndEnableRestoresTheTunedSolution) {
  FloatGemm g(32, 32, 32);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + ",Test_Fast,0.01\n");
  Context ctx(test_options(dir, counts, log));
  ctx.enable(false);
  EXPECT_FALSE(ctx.is_enabled());
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Disabled);
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Default"), 1);
  ctx.enable();
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 1);
}

// A null provider is the application's mistake, said as one: it was dereferenced (SIGSEGV); so is
// a workspace of more than 1 TiB, and a numerical check that is not one (it was logged and "on"
// used, and set_numerical_check threw gemmtune's internal InputError).
TEST_F(Dispatch, ANullProviderAHugeWorkspaceOrAnUnknownCheckIsAnInvalidArgument) {
  Options o = test_options(dir, counts, log);
  Context ctx(o);
  EXPECT_THROW(ctx.add_provider(nullptr), std::invalid_argument);
  o.providers.push_back(nullptr);
  EXPECT_THROW(Context{o}, std::invalid_argument);
  Options huge = test_options(dir, counts, log);
  huge.workspace_mb = kMaxWorkspaceMb + 1;  // in bytes it wrapped around
  EXPECT_THROW(Context{huge}, std::invalid_argument);
  Options unknown_check = test_options(dir, counts, log);
  unknown_check.numerical_check = "strict";
  EXPECT_THROW(Context{unknown_check}, std::invalid_argument);
  const std::string before = ctx.numerical_check();
  EXPECT_THROW(ctx.set_numerical_check("strict"), std::invalid_argument);
  EXPECT_EQ(ctx.numerical_check(), before);  // a refused mode changes nothing
  ctx.set_numerical_check("1e-2_1e-2");
  EXPECT_EQ(ctx.numerical_check(), "1e-2_1e-2");
  FloatGemm g(8, 8, 8);
  EXPECT_TRUE(g.run(ctx).ok);  // the Context goes on as it was
}

// What an application's provider does that it may not mean is said: one named as gemmtune's own
// replaces it (these tests' counting "cpu" provider does so on purpose, and takes Default with it),
// and one for another backend is never used.
TEST_F(Dispatch, AProviderThatReplacesOrIsNotUsedIsLogged) {
  Options o = test_options(dir, counts, log);
  o.providers.push_back(std::make_shared<EmptyProvider>("elsewhere"));
  Context ctx(o);
  EXPECT_EQ(log.count_containing("provider 'cpu' replaces gemmtune's own cpu provider"), 1u)
      << log.all();
  EXPECT_EQ(log.count_containing("provider 'openblas' replaces gemmtune's own cpu provider"), 1u)
      << log.all();
  EXPECT_EQ(log.count_containing("provider 'test' replaces"), 0u) << log.all();
  class CudaOnly final : public SolutionProvider {
   public:
    std::string_view name() const override { return "mine"; }
    std::string_view backend() const override { return "cuda"; }
    std::vector<std::unique_ptr<Solution>> enumerate(const Problem&,
                                                     const SearchOptions&) override {
      return {};
    }
    std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override {
      return nullptr;
    }
  };
  ctx.add_provider(std::make_shared<CudaOnly>());
  EXPECT_EQ(
      log.count_containing(
          "provider 'mine' is for backend 'cuda'; this Context runs 'cpu', so it is not used"),
      1u)
      << log.all();
}

// A device the backend does not have is refused, as on CUDA: the CPU backend has one, and a
// Context for "device 1" used to run on it anyway.
TEST_F(Dispatch, ADeviceTheCpuBackendDoesNotHaveIsRefused) {
  Options o = test_options(dir, counts, log);
  o.device = 1;
  try {
    Context ctx(o);
    FAIL() << "a Context for CPU device 1 opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the CPU backend has one device, 0"), std::string::npos)
        << e.what();
  }
}

TEST_F(Dispatch, AProviderAddedLaterIsDispatchedToo) {
  FloatGemm g(32, 32, 32);
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + ",Test_Fast,0.01\n");
  Options o = test_options(dir, counts, log);
  o.providers.pop_back();  // no "test" provider yet
  Context ctx(o);
  EXPECT_EQ(ctx.lookup(g.problem).source, Source::Fallback);
  ctx.add_provider(std::make_shared<TestProvider>(counts));
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Test_Fast");
  ASSERT_TRUE(g.run(ctx).ok);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 1);
}

// A provider that counts how often a name is rebuilt: what a reload may not throw away.
class NameCountingProvider final : public SolutionProvider {
 public:
  explicit NameCountingProvider(std::atomic<int>& rebuilt) : rebuilt_(rebuilt) {}
  std::string_view name() const override { return "named"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    return {};
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name != "Named_Fast") return nullptr;
    ++rebuilt_;
    return std::make_unique<FastSolution>("Named_Fast");
  }

 private:
  std::atomic<int>& rebuilt_;
};

// An application that re-reads its results file (other processes append to it) keeps the entries
// of the lines that did not change, and what they resolved: a new entry per line per reload,
// never freed while the Context lives, grew its memory by the whole file each time.
TEST_F(Dispatch, AReloadKeepsTheEntriesOfUnchangedLines) {
  FloatGemm kept(32, 32, 32), changed(24, 24, 24);
  const auto line = [](const FloatGemm& g, const std::string& time) {
    return "GemmTunableOp_float_NN," + g.problem.params_signature() + ",Named_Fast," + time + "\n";
  };
  write_text(dir / "results.csv", validator_lines() + line(kept, "0.01") + line(changed, "0.01"));
  std::atomic<int> rebuilt{0};
  Options o = test_options(dir, counts, log);
  o.providers.push_back(std::make_shared<NameCountingProvider>(rebuilt));
  Context ctx(o);
  ASSERT_TRUE(kept.run(ctx).ok);
  ASSERT_TRUE(changed.run(ctx).ok);
  EXPECT_EQ(rebuilt.load(), 2);
  write_text(dir / "results.csv", validator_lines() + line(kept, "0.01") + line(changed, "0.02"));
  for (int reload = 0; reload < 3; ++reload) {
    EXPECT_EQ(ctx.read_file().entries, 2u);
    ASSERT_TRUE(kept.run(ctx).ok);
    ASSERT_TRUE(changed.run(ctx).ok);
  }
  EXPECT_EQ(rebuilt.load(), 3);  // the changed line's new entry, once
}

// Solutions that turn down operands: "Picky_Aligned" refuses an A less aligned than 16 bytes
// (as a cuBLASLt algorithm does) and otherwise runs like Test_Fast; "Picky_Broken" fails every
// call with a plain failure.
class PickyProvider final : public SolutionProvider {
 public:
  explicit PickyProvider(Counts& counts) : counts_(counts) {}
  std::string_view name() const override { return "picky"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    return {};
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name != "Picky_Aligned" && name != "Picky_Broken") return nullptr;
    return std::make_unique<CountingSolution>(std::make_unique<Picky>(std::string(name)), counts_);
  }

 private:
  class Picky final : public Solution {
   public:
    explicit Picky(std::string name) : name_(std::move(name)), fast_(name_) {}
    const std::string& name() const override { return name_; }
    Support supports(const Problem& p) const override { return fast_.supports(p); }
    RunStatus run(const Problem& p, const Operands& o, void* stream) override {
      if (name_ == "Picky_Broken") return RunStatus::failure("the picky kernel is broken");
      if (reinterpret_cast<std::uintptr_t>(o.a) % 16 != 0) {
        return RunStatus::refusal("A is not aligned to 16 bytes");
      }
      return fast_.run(p, o, stream);
    }

   private:
    std::string name_;
    FastSolution fast_;
  };
  Counts& counts_;
};

// Options with the picky provider and a results file that names `solution` for `g`.
Options picky_options(const TempDir& dir, Counts& counts, Log& log, const FloatGemm& g,
                      const std::string& solution) {
  write_text(dir / "results.csv", validator_lines() + "GemmTunableOp_float_NN," +
                                      g.problem.params_signature() + "," + solution + ",0.01\n");
  Options o = test_options(dir, counts, log);
  o.providers.push_back(std::make_shared<PickyProvider>(counts));
  return o;
}

TEST_F(Dispatch, OperandsTheTunedSolutionRefusesAreRunByDefaultWithOneWarning) {
  FloatGemm g(32, 16, 8);
  Context ctx(picky_options(dir, counts, log, g, "Picky_Aligned"));
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Picky_Aligned");
  ASSERT_TRUE(g.run(ctx).ok);  // a vector's data: aligned
  EXPECT_EQ(counts.runs_of("Picky_Aligned"), 1);
  EXPECT_EQ(counts.runs_of("Default"), 0);

  // The same A, 4 bytes past a 16-byte boundary (a view into a larger array).
  std::vector<float> storage(g.a.size() + 8);
  float* shifted = storage.data() + 1;
  while (reinterpret_cast<std::uintptr_t>(shifted) % 16 != 4) ++shifted;
  std::copy(g.a.begin(), g.a.end(), shifted);
  for (int call = 0; call < 2; ++call) {
    std::fill(g.c.begin(), g.c.end(), -1.f);
    const RunStatus s = ctx.gemm(g.problem, shifted, g.b.data(), g.c.data());
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_LT(g.max_error(), 1e-4);
  }
  EXPECT_EQ(counts.runs_of("Picky_Aligned"), 3);
  EXPECT_EQ(counts.runs_of("Default"), 2);
  EXPECT_EQ(log.count_containing("Picky_Aligned turned down this call's operands (A is not "
                                 "aligned to 16 bytes); Default runs such calls"),
            1u)
      << log.all();
  EXPECT_EQ(ctx.lookup(g.problem).solution, "Picky_Aligned") << "the entry itself is kept";
}

TEST_F(Dispatch, AFailureIsReturnedNotHiddenBehindDefault) {
  FloatGemm g(32, 16, 8);
  Context ctx(picky_options(dir, counts, log, g, "Picky_Broken"));
  const RunStatus s = g.run(ctx);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.error.find("the picky kernel is broken"), std::string::npos) << s.error;
  EXPECT_EQ(counts.runs_of("Default"), 0);
}

TEST_F(Dispatch, ManyThreadsDispatchConcurrently) {
  std::vector<FloatGemm> gemms;
  std::string lines = validator_lines();
  for (int i = 0; i < 8; ++i) {
    gemms.emplace_back(16 + i, 16, 16);
    if (i % 2 == 0) {
      lines +=
          "GemmTunableOp_float_NN," + gemms.back().problem.params_signature() + ",Test_Fast,0.01\n";
    }
  }
  write_text(dir / "results.csv", lines);
  Context ctx(test_options(dir, counts, log));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 50; ++r) {
        FloatGemm& g = gemms[static_cast<std::size_t>((t + r) % 8)];
        std::vector<float> c(g.c.size());
        if (!ctx.gemm(g.problem, g.a.data(), g.b.data(), c.data()).ok) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(counts.runs_of("Test_Fast") + counts.runs_of("Default"), 200);
  EXPECT_EQ(counts.runs_of("Test_Fast"), 100);
}

TEST_F(Dispatch, AnInvalidProblemFailsWithAReasonInsteadOfCrashing) {
  Context ctx(test_options(dir, counts, log));
  Problem bad = Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  bad.lda = 2;  // smaller than m
  float x = 0;
  const RunStatus s = ctx.gemm(bad, &x, &x, &x);
  EXPECT_FALSE(s.ok);
  EXPECT_FALSE(s.error.empty());
}

// Refused before any solution runs, with the reason, and never recorded or tuned: a null operand
// (a solution would dereference it), a GemmAndBias without its bias (Default used to leave the
// bias out, a tuned solution to refuse), a problem no solution can run.
TEST_F(Dispatch, CallsNoSolutionCanRunAreRefusedAndNotRecorded) {
  Options o = test_options(dir, counts, log);
  o.record_untuned = true;
  Context ctx(o);
  FloatGemm g(8, 8, 8);
  const RunStatus null_a = ctx.gemm(g.problem, nullptr, g.b.data(), g.c.data());
  EXPECT_FALSE(null_a.ok);
  EXPECT_NE(null_a.error.find("A is a null pointer"), std::string::npos) << null_a.error;
  Problem with_bias = g.problem;
  with_bias.op = OpKind::GemmAndBias;
  with_bias.bias_type = DType::Float32;
  const RunStatus no_bias = ctx.gemm(with_bias, g.a.data(), g.b.data(), g.c.data());
  EXPECT_FALSE(no_bias.ok);
  EXPECT_NE(no_bias.error.find("without a bias pointer"), std::string::npos) << no_bias.error;
  Problem narrow = g.problem;
  narrow.lda = 2;
  const RunStatus bad = ctx.gemm(narrow, g.a.data(), g.b.data(), g.c.data());
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("lda=2"), std::string::npos) << bad.error;
  EXPECT_EQ(counts.runs_of("Default") + counts.runs_of("Test_Fast"), 0);
  EXPECT_EQ(lines_containing(dir / "untuned.csv", "ld_2_"), 0u);
  EXPECT_EQ(lines_containing(dir / "untuned.csv", "GemmAndBias"), 0u);
  EXPECT_TRUE(g.run(ctx).ok);  // the same problem with its operands runs, and is recorded
  EXPECT_EQ(lines_containing(dir / "untuned.csv", g.problem.params_signature()), 1u);
}

}  // namespace
}  // namespace gemmtune::testing
