// Lookup and dispatch overhead of gemmtune::Context on the CPU.
//
//   BM_Lookup/10000        lookup of tuned problems of a 10,000-entry table, in random order
//                          (target: <= 100 ns); 100 and 100,000 entries for the trend
//   BM_LookupSameProblem   one problem over and over (the table and entry stay in cache)
//   BM_FastHash            the hash alone
//   BM_DispatchCpu*        ctx.gemm of a 1x1x16 GEMM vs running the same resolved solution
//                          directly: what the Context adds to every call
// The CUDA benchmarks (gemm_overhead_cuda.cpp) are registered when built with CUDA.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "api/lookup_table.hpp"
#include "drivers/backend_factory.hpp"
#include "gemmtune/gemmtune.hpp"

namespace {

using gemmtune::Problem;

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         fmt::format("gemmtune-lookup-bench-{}-{}", ::getpid(), name);
}

gemmtune::Options quiet_cpu_options(const std::filesystem::path& file) {
  gemmtune::Options o;
  o.backend = "cpu";
  o.filename = file.string();
  o.insert_device_ordinal = false;
  o.log = [](std::string_view) {};
  return o;
}

// `count` distinct float problems, all tuned (to a blocked CPU kernel) in a results file.
struct TunedTable {
  std::vector<Problem> problems;  // shuffled
  Problem smallest;               // 1x1x16
  std::filesystem::path file;
  std::unique_ptr<gemmtune::Context> ctx;

  explicit TunedTable(std::size_t count) : file(scratch(fmt::format("table{}.csv", count))) {
    std::string validators;
    {
      gemmtune::Context probe(quiet_cpu_options(scratch("none.csv")));
      for (const auto& [k, v] : probe.validators()) validators += fmt::format("Validator,{},{}\n", k, v);
    }
    std::ofstream out(file);
    out << validators;
    for (std::size_t i = 0; i < count; ++i) {
      const auto m = static_cast<std::int64_t>(1 + i % 128);
      const auto n = static_cast<std::int64_t>(1 + (i / 128) % 128);
      const auto k = static_cast<std::int64_t>(1 + i / (128 * 128));
      problems.push_back(Problem::make(gemmtune::OpKind::Gemm, gemmtune::DType::Float32,
                                       gemmtune::Transpose::N, gemmtune::Transpose::N, m, n,
                                       16 * k));
      out << problems.back().op_signature() << "," << problems.back().params_signature()
          << ",Cpu_Blocked_mc_64_kc_256_nc_256,0.01\n";
    }
    out.close();
    ctx = std::make_unique<gemmtune::Context>(quiet_cpu_options(file));
    if (ctx->load_report().entries != count) {
      throw std::runtime_error(fmt::format("loaded {} of {} entries: {}",
                                           ctx->load_report().entries, count,
                                           ctx->load_report().message));
    }
    for (const auto& p : problems) {
      if (!ctx->lookup(p).tuned()) throw std::runtime_error("not tuned: " + p.params_signature());
    }
    smallest = problems.front();
    std::shuffle(problems.begin(), problems.end(), std::mt19937(1));
  }
  ~TunedTable() {
    std::error_code ec;
    std::filesystem::remove(file, ec);
  }
};

TunedTable& table(std::size_t count) {
  static std::map<std::size_t, std::unique_ptr<TunedTable>> tables;
  auto& t = tables[count];
  if (!t) t = std::make_unique<TunedTable>(count);
  return *t;
}

void BM_Lookup(benchmark::State& state) {
  TunedTable& t = table(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = t.problems.size();
  std::size_t i = static_cast<std::size_t>(state.thread_index()) * 7919 % n;
  for (auto _ : state) {
    const gemmtune::Lookup l = t.ctx->lookup(t.problems[i]);
    benchmark::DoNotOptimize(l);
    if (++i == n) i = 0;
  }
  state.counters["entries"] = static_cast<double>(n);
}
BENCHMARK(BM_Lookup)->Arg(100)->Arg(10000)->Arg(100000);
BENCHMARK(BM_Lookup)->Arg(10000)->Threads(2)->UseRealTime();

void BM_LookupSameProblem(benchmark::State& state) {
  TunedTable& t = table(10000);
  const Problem p = t.problems[17];
  for (auto _ : state) {
    const gemmtune::Lookup l = t.ctx->lookup(p);
    benchmark::DoNotOptimize(l);
  }
}
BENCHMARK(BM_LookupSameProblem);

void BM_FastHash(benchmark::State& state) {
  TunedTable& t = table(10000);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(gemmtune::api::fast_hash(t.problems[i]));
    if (++i == t.problems.size()) i = 0;
  }
}
BENCHMARK(BM_FastHash);

// ---- dispatch on the CPU: ctx.gemm vs the same solution called directly -------------------

struct CpuDispatch {
  Problem p;
};

void BM_DispatchCpuContext(benchmark::State& state) {
  TunedTable& t = table(10000);
  CpuDispatch d;
  d.p = t.smallest;
  std::vector<float> a(static_cast<std::size_t>(d.p.a_elements()), 0.5f);
  std::vector<float> b(static_cast<std::size_t>(d.p.b_elements()), 0.5f);
  std::vector<float> c(static_cast<std::size_t>(d.p.c_elements()));
  for (auto _ : state) {
    const auto s = t.ctx->gemm(d.p, a.data(), b.data(), c.data());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_DispatchCpuContext);

void BM_DispatchCpuDirect(benchmark::State& state) {
  TunedTable& t = table(10000);
  CpuDispatch d;
  d.p = t.smallest;
  auto session = gemmtune::open_backend(gemmtune::BackendKind::Cpu);
  auto solution = session.registry->from_name("cpu", d.p, "Cpu_Blocked_mc_64_kc_256_nc_256");
  std::vector<float> a(static_cast<std::size_t>(d.p.a_elements()), 0.5f);
  std::vector<float> b(static_cast<std::size_t>(d.p.b_elements()), 0.5f);
  std::vector<float> c(static_cast<std::size_t>(d.p.c_elements()));
  gemmtune::Operands ops;
  ops.a = a.data();
  ops.b = b.data();
  ops.c = c.data();
  for (auto _ : state) {
    const auto s = solution->run(d.p, ops, nullptr);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_DispatchCpuDirect);

}  // namespace

BENCHMARK_MAIN();
