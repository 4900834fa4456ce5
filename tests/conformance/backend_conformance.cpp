// The BackendConformance fixture and the tests of the Backend's own contract: properties,
// validators, buffers, fills, copies, the stream, the timer, the cache flush and the optional
// device checks. See backend_conformance.hpp for what the suite is and how a backend instantiates
// it; solution_conformance.cpp tests its solutions. Each test says which contract it checks.
#include "backend_conformance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <regex>

#include "conformance_support.hpp"
#include "db/csv_results.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/operand_sets.hpp"
#include "tuner/profiler.hpp"
#include "validator/collect.hpp"

namespace gemmtune::conformance {

std::string backend_under_test_name(const testing::TestParamInfo<BackendUnderTest>& info) {
  return info.param.name;
}

void PrintTo(const BackendUnderTest& target, std::ostream* os) {
  *os << "backend '" << target.name << "'";
}

void BackendConformance::SetUp() {
  const BackendUnderTest& target = GetParam();
  ASSERT_TRUE(target.open && target.register_solutions)
      << "BackendUnderTest needs `open` and `register_solutions`";
  ASSERT_FALSE(target.dtypes.empty()) << "BackendUnderTest claims no dtype";
  if (target.unavailable) {
    if (const auto why = target.unavailable()) GTEST_SKIP() << *why;
  }
  backend_ = target.open();
  ASSERT_NE(backend_, nullptr);
  target.register_solutions(registry_);
}

namespace {

std::string dtype_name(DType dtype) {
  return std::string(info(dtype).cli_name);
}

// numerical_check.hpp's rule for one value: error / allowed, infinite for NaN.
double check_ratio(double reference, double candidate, const Tolerance& tolerance) {
  const double error = std::fabs(candidate - reference);
  const double allowed = tolerance.atol + tolerance.rtol * std::fabs(reference);
  if (error <= allowed) return allowed > 0 ? error / allowed : 0.0;
  if (std::isnan(error)) return std::numeric_limits<double>::infinity();
  return allowed > 0 ? error / allowed : std::numeric_limits<double>::infinity();
}

// The root mean square numerical_check.hpp takes of the finite m×n elements of a C.
double host_rms(const Problem& problem, const std::vector<double>& c) {
  const NumericalCheckOptions defaults;
  const Tolerance t = tolerance_for(problem, defaults, c);
  return t.atol / t.rtol;
}

}  // namespace

// --- Device properties and validators (backend.hpp: DeviceProperties, versions) --------------

TEST_P(BackendConformance, PropertiesAreFilled) {
  const DeviceProperties& p = backend().properties();
  EXPECT_FALSE(p.backend.empty());
  EXPECT_GE(p.ordinal, 0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_FALSE(p.architecture.empty());
  EXPECT_GT(p.memory_bytes, 0u);
  // Rotation sizes its operand sets from it: read it from the device, never assume it.
  EXPECT_GT(p.last_level_cache_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  // Optional; where given, domain:bus:device.function, which other tools (NVML) look devices up by.
  if (!p.pci_bus_id.empty()) {
    static const std::regex bus_id("[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
    EXPECT_TRUE(std::regex_match(p.pci_bus_id, bus_id)) << p.pci_bus_id;
  }
}

TEST_P(BackendConformance, AvailableMemoryIsWithinTheTotal) {
  const std::size_t available = backend().available_memory_bytes();
  EXPECT_GT(available, 0u);
  EXPECT_LE(available, backend().properties().memory_bytes);
}

TEST_P(BackendConformance, SolutionsAreRegisteredUnderTheBackendsName) {
  const std::string& name = backend().properties().backend;
  const auto providers = registry().providers_for(name);
  ASSERT_FALSE(providers.empty()) << "no provider registered for backend '" << name << "'";
  for (const auto& provider : providers) {
    EXPECT_FALSE(provider->name().empty());
    EXPECT_EQ(provider->backend(), name) << provider->name();
  }
}

TEST_P(BackendConformance, VersionsNameWhatChangesAResult) {
  const Environment env = backend().versions();
  ASSERT_FALSE(env.empty()) << "versions() must report what a result depends on";
  for (const auto& [key, value] : env.entries()) {
    EXPECT_FALSE(key.empty());
    EXPECT_FALSE(breaks_a_csv_field(key) || has_surrounding_space(key)) << "key '" << key << "'";
    EXPECT_FALSE(value.empty()) << key;
    EXPECT_EQ(value.find_first_of("\r\n"), std::string::npos) << key << " = '" << value << "'";
    EXPECT_FALSE(has_surrounding_space(value)) << key << " = '" << value << "'";
  }
  for (const std::string& key : GetParam().version_keys) {
    EXPECT_TRUE(env.contains(key)) << "versions() lacks " << key;
  }
  // gemmtune's own keys are collect_environment's; a backend must not overwrite them.
  EXPECT_FALSE(env.contains(kGemmtuneVersionKey));
  EXPECT_FALSE(env.contains(kBackendKey));
  // A results file validates against the machine it was measured on: the same device reports
  // the same versions, call after call and backend after backend.
  EXPECT_EQ(backend().versions(), env);
  const auto second = GetParam().open();
  EXPECT_EQ(second->versions(), env);
}

TEST_P(BackendConformance, ValidatorsSurviveAResultsFile) {
  const Environment env = collect_environment(backend());
  EXPECT_EQ(env.get(kBackendKey), backend().properties().backend);
  Diagnostics diagnostics;
  const ResultsTable table =
      parse_results_csv(format_validator_lines(env), "versions", diagnostics);
  EXPECT_TRUE(diagnostics.empty()) << diagnostics.format_all();
  EXPECT_EQ(table.environment, env);
}

// --- Buffers, fill, copies (backend.hpp: allocate, fill_random, fill_bytes, copy, read) -------

TEST_P(BackendConformance, BuffersHaveTheSizeAskedFor) {
  std::vector<std::unique_ptr<Buffer>> buffers;
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4096}, (std::size_t{1} << 20) + 3}) {
    buffers.push_back(backend().allocate(bytes));
    ASSERT_NE(buffers.back(), nullptr);
    EXPECT_NE(buffers.back()->data(), nullptr) << bytes;
    EXPECT_EQ(buffers.back()->bytes(), bytes);
  }
  // Live buffers never overlap.
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    for (std::size_t j = i + 1; j < buffers.size(); ++j) {
      const auto a = reinterpret_cast<std::uintptr_t>(buffers[i]->data());
      const auto b = reinterpret_cast<std::uintptr_t>(buffers[j]->data());
      EXPECT_TRUE(a + buffers[i]->bytes() <= b || b + buffers[j]->bytes() <= a) << i << ", " << j;
    }
  }
}

TEST_P(BackendConformance, FillIsRandomNonZeroAndReproducible) {
  constexpr std::int64_t n = 4099;
  for (DType d : dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const std::size_t parts = static_cast<std::size_t>(parts_of(d));
    // Twice the elements, poisoned: the fill must write the elements asked for and no more.
    auto buffer = backend().allocate(2 * n * element_bytes(d));
    backend().fill_bytes(*buffer, poison_byte(d));
    backend().fill_random(*buffer, d, n, 7);
    backend().synchronize();
    const std::vector<double> all = backend().read_as_double(*buffer, d, 2 * n);
    ASSERT_EQ(all.size(), 2 * n * parts);
    const std::vector<double> v(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n * parts));
    double sum = 0, lo = 2, hi = -2;
    int negative = 0;
    for (double x : v) {
      // Zeros run faster and hide unwritten outputs; values outside [-1, 1] break tolerances.
      ASSERT_TRUE(std::isfinite(x));
      ASSERT_NE(x, 0.0);
      ASSERT_LE(std::fabs(x), 1.0);
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      negative += x < 0;
    }
    // Uniform in [-1, 1]: centred, both signs, spread over the range (bounds > 10 sigma).
    EXPECT_LT(std::fabs(sum / static_cast<double>(v.size())), 0.1);
    EXPECT_GT(negative, static_cast<int>(v.size() / 4));
    EXPECT_LT(negative, static_cast<int>(3 * v.size() / 4));
    EXPECT_LT(lo, -0.5);
    EXPECT_GT(hi, 0.5);
    for (std::size_t i = v.size(); i < all.size(); ++i) {
      ASSERT_TRUE(std::isnan(all[i])) << "fill_random wrote past its elements, at value " << i;
    }

    auto again = backend().allocate(n * element_bytes(d));
    backend().fill_random(*again, d, n, 7);
    backend().synchronize();
    EXPECT_EQ(backend().read_as_double(*again, d, n), v) << "the same seed must reproduce";
    backend().fill_random(*again, d, n, 8);
    backend().synchronize();
    const std::vector<double> other = backend().read_as_double(*again, d, n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < v.size(); ++i) differ += other[i] != v[i];
    EXPECT_GT(differ, v.size() / 2) << "another seed must give other values";
  }
}

TEST_P(BackendConformance, FillBytesSetsEveryByte) {
  constexpr std::int64_t n = 1000;
  for (DType d : dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    // The tuner poisons outputs so that an element a candidate never writes reads back as NaN.
    auto buffer = backend().allocate(n * element_bytes(d));
    backend().fill_random(*buffer, d, n, 3);
    backend().fill_bytes(*buffer, poison_byte(d));
    backend().synchronize();
    for (double x : backend().read_as_double(*buffer, d, n)) ASSERT_TRUE(std::isnan(x)) << x;
  }
  // ScaledGemm's scales are set with fill_bytes(0x3F): 0x3F3F3F3F in every float.
  auto scales = backend().allocate(7 * sizeof(float));
  backend().fill_bytes(*scales, 0x3F);
  backend().synchronize();
  const std::uint32_t bits = 0x3F3F3F3Fu;
  float expected = 0;
  std::memcpy(&expected, &bits, sizeof expected);
  for (double x : backend().read_as_double(*scales, DType::Float32, 7)) EXPECT_EQ(x, expected);
}

TEST_P(BackendConformance, CopyRoundTrips) {
  constexpr std::int64_t n = 2048;
  for (DType d : dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const std::size_t bytes = n * element_bytes(d);
    auto src = backend().allocate(bytes);
    auto dst = backend().allocate(bytes);
    backend().fill_random(*src, d, n, 1);
    backend().fill_random(*dst, d, n, 2);
    backend().synchronize();
    const std::vector<double> values = backend().read_as_double(*src, d, n);
    const std::vector<double> old = backend().read_as_double(*dst, d, n);

    backend().copy(*dst, *src, bytes / 2);  // the first half only
    backend().synchronize();
    const std::vector<double> half = backend().read_as_double(*dst, d, n);
    const auto middle = static_cast<std::ptrdiff_t>(half.size() / 2);
    EXPECT_TRUE(std::equal(half.begin(), half.begin() + middle, values.begin()));
    EXPECT_TRUE(std::equal(half.begin() + middle, half.end(), old.begin() + middle))
        << "copy wrote past the bytes asked for";

    backend().copy(*dst, *src, bytes);
    backend().synchronize();
    EXPECT_EQ(backend().read_as_double(*dst, d, n), values);
    EXPECT_EQ(backend().read_as_double(*src, d, n), values) << "copy changed its source";
  }
}

// --- Stream, timer, cache flush (backend.hpp: stream, synchronize, make_timer, flush_cache) ----

TEST_P(BackendConformance, StreamOrdersBackendWorkAndSolutions) {
  // The tuner poisons the check output and runs a candidate right after, without waiting: the
  // backend's own work and solutions run on stream() are one ordered queue.
  EXPECT_EQ(backend().stream(), backend().stream());
  const DType d = dtypes().front();
  const GemmCase gemm{tuning_problem(d)};
  const Problem& p = gemm.problem;
  auto solution = registry().from_name(backend().properties().backend, p, kDefaultSolutionName);
  ASSERT_NE(solution, nullptr);
  ASSERT_TRUE(solution->supports(p)) << solution->supports(p).reason;
  DeviceGemm ops(backend(), gemm, solution->workspace_bytes(p), 5);

  ops.reset_c();  // poison, then the GEMM overwrites it
  ASSERT_TRUE(solution->run(p, ops.operands(), backend().stream()));
  const std::vector<double> c = ops.read_c();
  const CheckResult r = compare_outputs(p, ops.expected(), c,
                                        tolerance_for(p, NumericalCheckOptions{}, ops.expected()));
  EXPECT_TRUE(r.passed) << "the GEMM ran before the poison it follows: "
                        << r.describe(p.m * p.n * p.batch);

  ASSERT_TRUE(solution->run(p, ops.operands(), backend().stream()));
  backend().fill_bytes(ops.c(), poison_byte(p.c_type));  // the GEMM, then the poison
  const std::vector<double> poisoned = ops.read_c();
  for (std::size_t i = 0; i < poisoned.size(); ++i) {
    ASSERT_TRUE(std::isnan(poisoned[i]))
        << "the poison ran before the GEMM it follows, value " << i;
  }
}

TEST_P(BackendConformance, TimerGivesOneSamplePerIteration) {
  const DType d = dtypes().front();
  constexpr std::int64_t n = 1 << 16;
  auto work = backend().allocate(n * element_bytes(d));
  auto small = backend().allocate(256);
  for (const TimingMode mode : {TimingMode::Immediate, TimingMode::Queued}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    auto timer = backend().make_timer(mode);
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 5; ++i) {
        backend().flush_cache();  // between iterations, untimed, as the profiler does
        timer->begin_iteration();
        backend().fill_bytes(*work, static_cast<unsigned char>(i));
        timer->end_iteration();
      }
      // collect_ms waits for the timed work itself: no synchronize before it.
      const std::vector<double> samples = timer->collect_ms();
      ASSERT_EQ(samples.size(), 5u) << "round " << round;
      for (double ms : samples) {
        EXPECT_TRUE(std::isfinite(ms));
        EXPECT_GT(ms, 0.0);
      }
    }
    EXPECT_TRUE(timer->collect_ms().empty()) << "samples are handed out once";

    // The profiler issues up to kMaxChunk iterations between two collections (kMaxQueuedChunk
    // where they are queued).
    const int chunk = mode == TimingMode::Queued ? kMaxQueuedChunk : kMaxChunk;
    for (int i = 0; i < chunk; ++i) {
      timer->begin_iteration();
      backend().fill_bytes(*small, static_cast<unsigned char>(i));
      timer->end_iteration();
    }
    const std::vector<double> many = timer->collect_ms();
    ASSERT_EQ(many.size(), static_cast<std::size_t>(chunk));
    for (double ms : many) EXPECT_TRUE(std::isfinite(ms) && ms >= 0) << ms;
  }
  // The work is done and the device free: nothing is left held.
  backend().synchronize();
}

TEST_P(BackendConformance, FlushCacheLeavesBuffersIntact) {
  const DType d = dtypes().front();
  constexpr std::int64_t n = 1 << 14;
  auto buffer = backend().allocate(n * element_bytes(d));
  backend().fill_random(*buffer, d, n, 9);
  backend().synchronize();
  const std::vector<double> before = backend().read_as_double(*buffer, d, n);
  backend().flush_cache();
  backend().flush_cache();
  backend().synchronize();
  EXPECT_EQ(backend().read_as_double(*buffer, d, n), before);
}

// --- Optional device checks (backend.hpp: output_rms, compare_outputs) -------------------------
// "nullopt means not on this backend, and the tuner then reads the outputs back and compares them
// on the host (numerical_check.hpp), with the same rule and result."

TEST_P(BackendConformance, OutputRmsAgreesWithTheHost) {
  int checked = 0;
  for (DType d : dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const Problem p = padded_output_problem(d);
    const std::int64_t elements = p.c_elements();
    auto c = backend().allocate(elements * element_bytes(d));
    // The last third NaN: the RMS is of the finite elements, and of m×n only (no padding, gaps).
    backend().fill_bytes(*c, poison_byte(d));
    backend().fill_random(*c, d, 2 * elements / 3, 11);
    backend().synchronize();
    const std::optional<double> rms = backend().output_rms(p, *c);
    if (!rms) continue;
    ++checked;
    const double expected = host_rms(p, backend().read_as_double(*c, d, elements));
    EXPECT_NEAR(*rms, expected, 1e-6 * expected);
  }
  if (checked == 0) GTEST_SKIP() << "output_rms is not offered: the tuner checks on the host";
}

TEST_P(BackendConformance, CompareOutputsAgreesWithTheHost) {
  int checked = 0;
  for (DType d : dtypes()) {
    SCOPED_TRACE(dtype_name(d));
    const Problem p = padded_output_problem(d);
    const std::int64_t elements = p.c_elements();
    const std::size_t bytes = elements * element_bytes(d);
    auto reference = backend().allocate(bytes);
    auto same = backend().allocate(bytes);
    auto other = backend().allocate(bytes);
    auto partial = backend().allocate(bytes);
    backend().fill_random(*reference, d, elements, 21);
    backend().fill_random(*same, d, elements, 21);
    backend().fill_random(*other, d, elements, 22);
    backend().fill_bytes(*partial, poison_byte(d));
    backend().fill_random(*partial, d, 2 * elements / 3, 23);
    backend().synchronize();
    const Tolerance tolerance{0.5, 0.25};  // some elements pass, others do not

    const auto self = backend().compare_outputs(p, *reference, *same, tolerance);
    if (!self) continue;
    ++checked;
    EXPECT_TRUE(self->passed);
    EXPECT_EQ(self->mismatches, 0);

    const std::vector<double> host_reference = backend().read_as_double(*reference, d, elements);
    for (const Buffer* candidate : {other.get(), partial.get()}) {
      SCOPED_TRACE(candidate == partial.get() ? "candidate with NaN" : "random candidate");
      const auto device = backend().compare_outputs(p, *reference, *candidate, tolerance);
      ASSERT_TRUE(device.has_value()) << "compare_outputs declined a type it compared before";
      const std::vector<double> host_candidate = backend().read_as_double(*candidate, d, elements);
      const CheckResult host = compare_outputs(p, host_reference, host_candidate, tolerance);
      EXPECT_EQ(device->passed, host.passed);
      EXPECT_EQ(device->mismatches, host.mismatches);
      if (info(d).is_complex) continue;  // the host counts real and imaginary parts apart
      // The worst element may be any of equals: it must be as bad as the host's worst.
      const std::int64_t at = device->worst_batch * p.batch_stride_c() +
                              device->worst_col * p.blas_ldc() + device->worst_row;
      ASSERT_TRUE(at >= 0 && at < elements && written_by_gemm(p, at))
          << "worst element (" << device->worst_row << ", " << device->worst_col << ", batch "
          << device->worst_batch << ") is not one of C's m×n";
      const auto i = static_cast<std::size_t>(at);
      EXPECT_DOUBLE_EQ(check_ratio(host_reference[i], host_candidate[i], tolerance),
                       host.worst_ratio);
      if (std::isfinite(host.worst_ratio)) {
        EXPECT_NEAR(device->worst_ratio, host.worst_ratio, 1e-9 * host.worst_ratio);
        EXPECT_EQ(device->expected, host_reference[i]);
        EXPECT_EQ(device->actual, host_candidate[i]);
      } else {
        EXPECT_TRUE(std::isinf(device->worst_ratio)) << device->worst_ratio;
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "compare_outputs is not offered: the tuner checks on the host";
}

}  // namespace gemmtune::conformance
