// Helpers for the API tests: a provider whose solution is fast and correct and counts its runs,
// a "cpu" provider that wraps the real Default and counts its runs (it replaces the built-in one,
// so the tests know exactly which solutions exist), and files with this machine's validators.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gemmtune/gemmtune.hpp"
#include "solutions/cpu/register_cpu.hpp"
#include "tests/unit/db/temp_dir.hpp"

namespace gemmtune::testing {

struct Counts {
  std::mutex mutex;
  std::map<std::string, int> runs;
  std::map<std::string, int> enumerations;  // by params signature

  void add_run(const std::string& name) {
    const std::lock_guard lock(mutex);
    ++runs[name];
  }
  int runs_of(const std::string& name) {
    const std::lock_guard lock(mutex);
    return runs[name];
  }
  int enumerations_of(const Problem& p) {
    const std::lock_guard lock(mutex);
    return enumerations[p.params_signature()];
  }
  void reset() {
    const std::lock_guard lock(mutex);
    runs.clear();
    enumerations.clear();
  }
};

// A float NN GEMM with a cache-friendly loop order: much faster than Default, same numbers up to
// float rounding.
class FastSolution final : public Solution {
 public:
  explicit FastSolution(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem& p) const override {
    if (p.op != OpKind::Gemm || p.dtype() != DType::Float32 || p.transa != Transpose::N ||
        p.transb != Transpose::N) {
      return Support::no("float NN Gemm only");
    }
    return Support::yes();
  }
  RunStatus run(const Problem& p, const Operands& o, void*) override {
    const auto* a = static_cast<const float*>(o.a);
    const auto* b = static_cast<const float*>(o.b);
    auto* c = static_cast<float*>(o.c);
    for (std::int64_t j = 0; j < p.n; ++j) {
      float* cj = c + j * p.ldc;
      for (std::int64_t i = 0; i < p.m; ++i) cj[i] = o.beta == 0 ? 0.f : float(o.beta) * cj[i];
      for (std::int64_t l = 0; l < p.k; ++l) {
        const float s = float(o.alpha) * b[l + j * p.ldb];
        const float* al = a + l * p.lda;
        for (std::int64_t i = 0; i < p.m; ++i) cj[i] += s * al[i];
      }
    }
    return RunStatus::success();
  }

 private:
  std::string name_;
};

class CountingSolution final : public Solution {
 public:
  CountingSolution(std::unique_ptr<Solution> inner, Counts& counts)
      : inner_(std::move(inner)), counts_(counts) {}
  const std::string& name() const override { return inner_->name(); }
  Support supports(const Problem& p) const override { return inner_->supports(p); }
  std::size_t workspace_bytes(const Problem& p) const override {
    return inner_->workspace_bytes(p);
  }
  RunStatus run(const Problem& p, const Operands& o, void* stream) override {
    counts_.add_run(inner_->name());
    return inner_->run(p, o, stream);
  }

 private:
  std::unique_ptr<Solution> inner_;
  Counts& counts_;
};

// "test": one solution, Test_Fast.
class TestProvider final : public SolutionProvider {
 public:
  explicit TestProvider(Counts& counts) : counts_(counts) {}
  std::string_view name() const override { return "test"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions&) override {
    {
      const std::lock_guard lock(counts_.mutex);
      ++counts_.enumerations[p.params_signature()];
    }
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(from_name(p, "Test_Fast"));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name != "Test_Fast") return nullptr;
    return std::make_unique<CountingSolution>(std::make_unique<FastSolution>("Test_Fast"), counts_);
  }

 private:
  Counts& counts_;
};

// Replaces the built-in "cpu" provider: Default only, counted. And an empty "openblas".
class CountingDefaultProvider final : public SolutionProvider {
 public:
  explicit CountingDefaultProvider(Counts& counts)
      : counts_(counts), inner_(cpu::make_cpu_provider()) {}
  std::string_view name() const override { return "cpu"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem& p,
                                                   const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(from_name(p, kDefaultSolutionName));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem& p, std::string_view name) override {
    auto s = inner_->from_name(p, name);
    if (s == nullptr) return nullptr;
    return std::make_unique<CountingSolution>(std::move(s), counts_);
  }

 private:
  Counts& counts_;
  std::shared_ptr<SolutionProvider> inner_;
};

class EmptyProvider final : public SolutionProvider {
 public:
  explicit EmptyProvider(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    return {};
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view) override { return nullptr; }

 private:
  std::string name_;
};

// Messages a Context logged.
struct Log {
  std::mutex mutex;
  std::vector<std::string> lines;
  LogSink sink() {
    return [this](std::string_view m) {
      const std::lock_guard lock(mutex);
      lines.emplace_back(m);
    };
  }
  std::size_t count_containing(std::string_view text) {
    const std::lock_guard lock(mutex);
    std::size_t n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos;
    return n;
  }
  std::string all() {
    const std::lock_guard lock(mutex);
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

// CPU options writing into `dir`, with the counting providers and quick tuning caps.
inline Options test_options(const TempDir& dir, Counts& counts, Log& log) {
  Options o;
  o.backend = "cpu";
  o.filename = (dir / "results.csv").string();
  o.untuned_filename = (dir / "untuned.csv").string();
  o.insert_device_ordinal = false;
  o.max_tuning_duration_ms = 20;
  o.max_tuning_iterations = 20;
  o.rotating_buffer_mb = 0;
  o.providers = {std::make_shared<CountingDefaultProvider>(counts),
                 std::make_shared<EmptyProvider>("openblas"),
                 std::make_shared<TestProvider>(counts)};
  o.log = log.sink();
  return o;
}

// How many times `text` occurs in a file (0 when there is no file).
inline std::size_t lines_containing(const std::filesystem::path& file, const std::string& text) {
  const std::string content = read_text(file);
  std::size_t n = 0;
  for (std::size_t pos = content.find(text); pos != std::string::npos;
       pos = content.find(text, pos + 1)) {
    ++n;
  }
  return n;
}

// This machine's validators as results-file lines.
inline std::string validator_lines() {
  Options o;
  o.backend = "cpu";
  o.filename = "/nonexistent/never.csv";
  o.log = [](std::string_view) {};
  Context probe(o);
  std::string text;
  for (const auto& [k, v] : probe.validators()) text += "Validator," + k + "," + v + "\n";
  return text;
}

// Column-major operands for a float problem, filled with a simple non-zero pattern.
struct FloatGemm {
  Problem problem;
  std::vector<float> a, b, c;

  explicit FloatGemm(std::int64_t m, std::int64_t n, std::int64_t k)
      : problem(Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, m, n, k)),
        a(static_cast<std::size_t>(m * k)),
        b(static_cast<std::size_t>(k * n)),
        c(static_cast<std::size_t>(m * n), -1.f) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = float((i * 7) % 13) / 13.f - 0.5f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = float((i * 5) % 11) / 11.f - 0.5f;
  }
  RunStatus run(Context& ctx) { return ctx.gemm(problem, a.data(), b.data(), c.data()); }
  // Largest |C - A·B| (computed in double).
  double max_error() const {
    double worst = 0;
    for (std::int64_t j = 0; j < problem.n; ++j) {
      for (std::int64_t i = 0; i < problem.m; ++i) {
        double acc = 0;
        for (std::int64_t l = 0; l < problem.k; ++l) {
          acc += double(a[i + l * problem.m]) * double(b[l + j * problem.k]);
        }
        worst = std::max(worst, std::abs(acc - double(c[i + j * problem.m])));
      }
    }
    return worst;
  }
};

}  // namespace gemmtune::testing
