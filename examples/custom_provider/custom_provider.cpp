// custom_provider: bring your own GEMM kernel.
//
// The application implements gemmtune::Solution (its kernel) and gemmtune::SolutionProvider (how
// to list it for a problem and rebuild it from its stored name), registers the provider with the
// Context, and switches online tuning on. The first call of each problem tunes it: the kernel
// competes with the built-in CPU solutions (Default, blocked kernels, OpenBLAS) under the same
// measurement protocol and numerical check; where it wins, later calls dispatch it and the
// results file names it. Then a results line naming the kernel is read (as a later run of the
// application would load it): every call of that problem runs the kernel — counted here.
//
//   custom_provider [RESULTS_FILE]      (default: custom_provider_results.csv)
//
// Exits 1 if a GEMM fails, the pinned problem does not run the kernel, or the provider was never
// consulted although nothing was loaded.
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/gemmtune.hpp"

namespace {

std::atomic<int> g_my_kernel_runs{0};

// The application's kernel: float, no transposes, a column-major loop order the compiler
// vectorises. Declares itself unsupported (with the reason) for anything else.
class MyColumnKernel final : public gemmtune::Solution {
 public:
  const std::string& name() const override { return name_; }
  gemmtune::Support supports(const gemmtune::Problem& p) const override {
    if (p.op != gemmtune::OpKind::Gemm || p.dtype() != gemmtune::DType::Float32 ||
        p.transa != gemmtune::Transpose::N || p.transb != gemmtune::Transpose::N) {
      return gemmtune::Support::no("MyApp_ColumnKernel runs float NN GEMMs only");
    }
    return gemmtune::Support::yes();
  }
  gemmtune::RunStatus run(const gemmtune::Problem& p, const gemmtune::Operands& o, void*) override {
    ++g_my_kernel_runs;
    const auto* a = static_cast<const float*>(o.a);
    const auto* b = static_cast<const float*>(o.b);
    auto* c = static_cast<float*>(o.c);
    const auto alpha = static_cast<float>(o.alpha), beta = static_cast<float>(o.beta);
    for (std::int64_t j = 0; j < p.n; ++j) {
      float* cj = c + j * p.ldc;
      for (std::int64_t i = 0; i < p.m; ++i) cj[i] = beta == 0 ? 0.f : beta * cj[i];
      if (alpha == 0) continue;  // as BLAS: no product is read, NaN in A or B included
      for (std::int64_t l = 0; l < p.k; ++l) {
        const float s = alpha * b[l + j * p.ldb];
        const float* al = a + l * p.lda;
        for (std::int64_t i = 0; i < p.m; ++i) cj[i] += s * al[i];
      }
    }
    return gemmtune::RunStatus::success();
  }

 private:
  std::string name_ = "MyApp_ColumnKernel";
};

class MyProvider final : public gemmtune::SolutionProvider {
 public:
  std::string_view name() const override { return "myapp"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<gemmtune::Solution>> enumerate(
      const gemmtune::Problem&, const gemmtune::SearchOptions&) override {
    ++enumerations;
    std::vector<std::unique_ptr<gemmtune::Solution>> out;
    out.push_back(std::make_unique<MyColumnKernel>());
    return out;
  }
  std::unique_ptr<gemmtune::Solution> from_name(const gemmtune::Problem&,
                                                std::string_view name) override {
    if (name != "MyApp_ColumnKernel") return nullptr;
    return std::make_unique<MyColumnKernel>();
  }
  std::atomic<int> enumerations{0};
};

}  // namespace

int main(int argc, char** argv) {
  gemmtune::Options options;  // set in code, not from the environment
  options.backend = "cpu";    // the kernel runs on host memory
  options.filename = argc > 1 ? argv[1] : "custom_provider_results.csv";
  options.insert_device_ordinal = false;
  options.tuning = true;
  options.max_tuning_duration_ms = 10;
  options.max_tuning_iterations = 20;
  auto provider = std::make_shared<MyProvider>();
  gemmtune::Context ctx(options);
  ctx.add_provider(provider);
  const bool had_results = ctx.load_report().entries > 0;  // a rerun: nothing new to tune

  int failures = 0;
  // 1. Online tuning: the kernel competes with the built-in solutions for each new problem.
  for (const std::int64_t size : {16, 160}) {
    const auto p =
        gemmtune::Problem::make(gemmtune::OpKind::Gemm, gemmtune::DType::Float32,
                                gemmtune::Transpose::N, gemmtune::Transpose::N, size, size, size);
    std::vector<float> a(static_cast<std::size_t>(size * size), 0.5f), b = a, c(a.size());
    const int before = g_my_kernel_runs.load();
    for (int call = 0; call < 3; ++call) {  // the first call tunes; the others dispatch
      if (!ctx.gemm(p, a.data(), b.data(), c.data()).ok) ++failures;
    }
    if (c[0] != 0.25f * static_cast<float>(size)) ++failures;
    const gemmtune::Lookup l = ctx.lookup(p);
    std::printf("tuned %s: winner %s; MyApp_ColumnKernel ran %d times (tuning included)\n",
                p.params_signature().c_str(), std::string(l.solution).c_str(),
                g_my_kernel_runs.load() - before);
  }

  // 2. Dispatch: a results line naming the kernel (from an earlier run, another machine of the
  // same kind, or a person's choice) makes every call of that problem run it.
  const auto p =
      gemmtune::Problem::make(gemmtune::OpKind::Gemm, gemmtune::DType::Float32,
                              gemmtune::Transpose::N, gemmtune::Transpose::N, 96, 96, 96);
  {
    std::string text;
    for (const auto& [key, value] : ctx.validators())
      text += "Validator," + key + "," + value + "\n";
    text += p.op_signature() + "," + p.params_signature() + ",MyApp_ColumnKernel,0.05\n";
    std::FILE* f = std::fopen("custom_provider_pinned.csv", "w");
    if (f == nullptr) return 1;
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  const gemmtune::LoadReport loaded = ctx.read_file("custom_provider_pinned.csv");
  std::vector<float> a(96 * 96, 0.5f), b = a, c(a.size());
  const int before = g_my_kernel_runs.load();
  for (int call = 0; call < 5; ++call) {
    if (!ctx.gemm(p, a.data(), b.data(), c.data()).ok) ++failures;
  }
  const int dispatched = g_my_kernel_runs.load() - before;
  std::printf("pinned %s (%zu entry read): lookup says %s; MyApp_ColumnKernel ran %d of 5 calls\n",
              p.params_signature().c_str(), loaded.entries,
              std::string(ctx.lookup(p).solution).c_str(), dispatched);
  if (dispatched != 5 || c[0] != 24.f) ++failures;
  std::printf("the provider was asked for candidates %d times; results in %s\n",
              provider->enumerations.load(), ctx.filename().c_str());
  if (provider->enumerations.load() == 0 && !had_results) {
    std::printf("FAILED: the provider was never consulted\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
