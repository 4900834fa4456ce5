// A fake Backend for engine tests: host memory, fp32 only, and a fake clock that solutions
// advance by programmed amounts — so caps, screening and selection are tested without waiting.
// A cache flush advances the clock by a large amount, which would show in any sample that
// wrongly included it.
#pragma once

#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/error.hpp"
#include "tuner/registry.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::testing {

struct FakeClock {
  double now_ms = 0;
  // Solution runs since the last timer begin: the second and later of one timed region ran
  // right behind another, with no event between them (a burst).
  int runs_since_begin = 0;
  bool replaying = false;  // the runs are a replay of captured ones (a graph)
};

class FakeBuffer final : public Buffer {
 public:
  explicit FakeBuffer(std::size_t bytes) : storage_((bytes + 7) / 8 + 1), bytes_(bytes) {}
  void* data() const override { return const_cast<double*>(storage_.data()); }
  std::size_t bytes() const override { return bytes_; }

 private:
  std::vector<double> storage_;  // doubles for alignment
  std::size_t bytes_;
};

class FakeTimer final : public IterationTimer {
 public:
  explicit FakeTimer(FakeClock& clock, int& collects) : clock_(clock), collects_(collects) {}
  void begin_iteration() override {
    start_ = clock_.now_ms;
    clock_.runs_since_begin = 0;
  }
  void end_iteration() override { samples_.push_back(clock_.now_ms - start_); }
  std::vector<double> collect_ms() override {
    ++collects_;
    return std::exchange(samples_, {});
  }

 private:
  FakeClock& clock_;
  int& collects_;
  double start_ = 0;
  std::vector<double> samples_;
};

// Captured runs: each replay issues them again, one after another, on the fake clock.
class FakeCapturedRuns final : public CapturedRuns {
 public:
  FakeCapturedRuns(FakeClock& clock, std::function<RunStatus(void*)> issue, int runs)
      : clock_(clock), issue_(std::move(issue)), runs_(runs) {}
  std::optional<double> replay_ms_per_run() override {
    clock_.replaying = true;
    clock_.runs_since_begin = 0;
    const double start = clock_.now_ms;
    for (int i = 0; i < runs_; ++i) (void)issue_(nullptr);
    clock_.replaying = false;
    return (clock_.now_ms - start) / runs_;
  }

 private:
  FakeClock& clock_;
  std::function<RunStatus(void*)> issue_;
  int runs_;
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(std::size_t llc_bytes = 1 << 20, std::size_t memory_bytes = 1ull << 30) {
    properties_.backend = "fake";
    properties_.name = "Fake Device";
    properties_.last_level_cache_bytes = llc_bytes;
    properties_.memory_bytes = memory_bytes;
    properties_.compute_units = 1;
  }
  const DeviceProperties& properties() const override { return properties_; }
  Environment versions() const override { return version_values; }
  void* stream() const override { return nullptr; }
  bool capturing(void* stream) const override { return stream == captured_stream; }
  const void* stream_identity(void* stream) const override {
    thread_local const char this_threads_stream = 0;
    return stream != nullptr && stream == per_thread_stream ? &this_threads_stream : stream;
  }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override {
    ++allocations;
    allocated_bytes += bytes;
    return std::make_unique<FakeBuffer>(bytes);
  }
  void fill_random(Buffer& buffer, DType dtype, std::int64_t elements,
                   std::uint64_t seed) override {
    GEMMTUNE_EXPECT(dtype == DType::Float32, "fake backend is fp32 only");
    auto* p = static_cast<float*>(buffer.data());
    std::uint64_t state = seed * 2654435761u + 1;
    for (std::int64_t i = 0; i < elements; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const float u = static_cast<float>((state >> 40) & 0xFFFF) / 65535.0f;  // [0, 1]
      p[i] = (u * 2 - 1) == 0 ? 0.5f : u * 2 - 1;
    }
  }
  void fill_bytes(Buffer& buffer, unsigned char value) override {
    std::memset(buffer.data(), value, buffer.bytes());
  }
  void copy(Buffer& dst, const Buffer& src, std::size_t bytes) override {
    std::memcpy(dst.data(), src.data(), bytes);
  }
  std::vector<double> read_as_double(const Buffer& src, DType, std::int64_t elements) override {
    const auto* p = static_cast<const float*>(src.data());
    return std::vector<double>(p, p + elements);
  }
  void synchronize() override {}
  void flush_cache() override {
    ++flushes;
    clock.now_ms += 1000;  // would wreck any sample that included it
  }
  std::unique_ptr<IterationTimer> make_timer(TimingMode mode) override {
    timer_modes.push_back(mode);
    return std::make_unique<FakeTimer>(clock, collects);
  }
  std::unique_ptr<CapturedRuns> capture_runs(const std::function<RunStatus(void*)>& issue, int runs,
                                             std::string& why) override {
    why.clear();
    ++captures;
    if (!can_capture) return nullptr;
    for (int i = 0; i < runs; ++i) {
      if (const RunStatus status = issue(nullptr); !status) {
        why = "a run failed during capture: " + status.error;
        return nullptr;
      }
    }
    return std::make_unique<FakeCapturedRuns>(clock, issue, runs);
  }

  FakeClock clock;
  int flushes = 0;
  int collects = 0;
  int captures = 0;                     // capture_runs calls
  bool can_capture = true;              // false: no captures on this backend, as the CPU's
  std::vector<TimingMode> timer_modes;  // of every timer made
  int allocations = 0;
  std::size_t allocated_bytes = 0;
  void* captured_stream = nullptr;  // capturing() is true for this stream (if not null)
  Environment version_values{{"FAKE_VERSION", "1"}};  // what versions() reports
  // A handle that names a stream of each thread, as cudaStreamPerThread does (if not null).
  void* per_thread_stream = nullptr;

 private:
  DeviceProperties properties_;
};

// What a fake solution does when it runs. The last three run alpha = 1, beta = 0 correctly and
// other scalars as said: computed as if alpha were 1 and beta 0, refused, or failed.
enum class Behaviour {
  Correct,
  Wrong,
  NoWrite,
  Throw,
  Fail,
  IgnoresScalars,
  RefusesOtherScalars,
  FailsOtherScalars
};

// Shared between a FakeSolution and the test, so that the test can see what happened.
struct FakeSolutionState {
  std::string name;
  std::function<double(int call)> time_ms = [](int) { return 1.0; };
  Behaviour behaviour = Behaviour::Correct;
  Support support = Support::yes();
  int calls = 0;
  std::vector<const void*> c_pointers;  // every C it wrote to
  // Added to a run right behind another in one timed region (a burst), as a kernel slowed down
  // by one that starts early behind it.
  double back_to_back_extra_ms = 0;
  // Added to a run replayed from captured ones (a graph).
  double graph_extra_ms = 0;
};

// fp32 NN GEMM computed naively; the fake clock advances by the programmed time per call.
class FakeSolution final : public Solution {
 public:
  FakeSolution(FakeClock& clock, std::shared_ptr<FakeSolutionState> state)
      : clock_(clock), state_(std::move(state)) {}
  const std::string& name() const override { return state_->name; }
  Support supports(const Problem&) const override { return state_->support; }
  RunStatus run(const Problem& p, const Operands& o, void*) override {
    const int call = state_->calls++;
    state_->c_pointers.push_back(o.c);
    clock_.now_ms += state_->time_ms(call);
    if (clock_.runs_since_begin++ > 0) clock_.now_ms += state_->back_to_back_extra_ms;
    if (clock_.replaying) clock_.now_ms += state_->graph_extra_ms;
    if (state_->behaviour == Behaviour::Throw) throw std::runtime_error("kaboom");
    if (state_->behaviour == Behaviour::Fail) return RunStatus::failure("status 13");
    if (state_->behaviour == Behaviour::NoWrite) return RunStatus::success();
    const bool other_scalars = o.alpha != 1.0 || o.beta != 0.0;
    if (other_scalars && state_->behaviour == Behaviour::RefusesOtherScalars) {
      return RunStatus::refusal("alpha = 1 and beta = 0 only");
    }
    if (other_scalars && state_->behaviour == Behaviour::FailsOtherScalars) {
      return RunStatus::failure("alpha = 1 and beta = 0 only");
    }
    const bool ignore = state_->behaviour == Behaviour::IgnoresScalars;
    const double alpha = ignore ? 1.0 : o.alpha;
    const double beta = ignore ? 0.0 : o.beta;
    const auto* a = static_cast<const float*>(o.a);
    const auto* b = static_cast<const float*>(o.b);
    auto* c = static_cast<float*>(o.c);
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        double acc = 0;
        for (std::int64_t l = 0; l < p.k; ++l) acc += double(a[i + l * p.lda]) * b[l + j * p.ldb];
        float& out = c[i + j * p.ldc];
        out = static_cast<float>(alpha * acc + (beta == 0.0 ? 0.0 : beta * out));
      }
    }
    if (state_->behaviour == Behaviour::Wrong) c[p.ldc + 1] += 0.5f;  // one element off
    return RunStatus::success();
  }

 private:
  FakeClock& clock_;
  std::shared_ptr<FakeSolutionState> state_;
};

class FakeProvider final : public SolutionProvider {
 public:
  explicit FakeProvider(FakeClock& clock, std::string name = "fake")
      : clock_(clock), name_(std::move(name)) {}
  std::shared_ptr<FakeSolutionState> add(std::string name, double ms = 1.0,
                                         Behaviour behaviour = Behaviour::Correct) {
    auto state = std::make_shared<FakeSolutionState>();
    state->name = std::move(name);
    state->time_ms = [ms](int) { return ms; };
    state->behaviour = behaviour;
    states_.push_back(state);
    return state;
  }
  std::string_view name() const override { return name_; }
  std::string_view backend() const override { return "fake"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    for (auto& s : states_) out.push_back(std::make_unique<FakeSolution>(clock_, s));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    for (auto& s : states_) {
      if (s->name == name) return std::make_unique<FakeSolution>(clock_, s);
    }
    return nullptr;
  }
  std::unique_ptr<Solution> reference(const Problem& p, const SearchOptions& options) override {
    reference_workspace_bytes = options.max_workspace_bytes;
    return from_name(p, kDefaultSolutionName);
  }

  std::size_t reference_workspace_bytes = 0;  // the limit the last reference() was asked under

 private:
  FakeClock& clock_;
  std::string name_;
  std::vector<std::shared_ptr<FakeSolutionState>> states_;
};

}  // namespace gemmtune::testing
