// app_lookup: load a results file, run GEMMs through gemmtune, and say which solution ran each.
//
//   app_lookup [RESULTS_FILE]
//
// Without an argument the results file comes from GEMMTUNE_FILENAME (default
// tunableop_results<device>.csv). Every GEMMTUNE_* variable applies (docs/options.md). Exits 1
// if a GEMM fails or computes a wrong C.
#include <chrono>
#include <cstdio>
#include <vector>

#include "gemmtune/gemmtune.hpp"
#include "operands.hpp"

int main(int argc, char** argv) {
  gemmtune::Options options = gemmtune::Options::from_environment();
  if (argc > 1) {
    options.filename = argv[1];
    options.insert_device_ordinal = false;
  }
  gemmtune::Context ctx(options);
  const gemmtune::LoadReport load = ctx.load_report();
  std::printf("gemmtune %s, %s device %d (%s)\n", gemmtune::library_version().data(),
              ctx.backend().data(), ctx.device(), ctx.device_name().c_str());
  std::printf("results %s: %s, %zu entries\n", ctx.filename().c_str(),
              !load.found ? "not found" : load.accepted ? "loaded" : "refused", load.entries);

  // The GEMMs this "application" runs, as TunableOp signatures.
  const std::vector<gemmtune::Problem> problems = {
      gemmtune::parse_problem("GemmTunableOp_float_NN", "nn_256_256_256_ld_256_256_256"),
      gemmtune::parse_problem("GemmTunableOp_float_TN", "tn_384_128_256_ld_256_256_384"),
      gemmtune::parse_problem("GemmTunableOp_double_NN", "nn_128_128_128_ld_128_128_128"),
      gemmtune::parse_problem("GemmTunableOp_BFloat16_TN", "tn_512_16_256_ld_256_256_512"),
      gemmtune::parse_problem("GemmStridedBatchedTunableOp_float_TN",
                              "tn_64_64_64_B_8_ld_64_64_64"),
  };
  const bool on_device = ctx.backend() != "cpu";
  int failures = 0;
  std::printf("%-58s %-40s %-8s %10s\n", "problem", "solution", "source", "us/call");
  for (const auto& p : problems) {
    example::Operands ops(p, on_device);
    const int calls = 5;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
      const gemmtune::RunStatus s = ctx.gemm(p, ops.a(), ops.b(), ops.c(), 1.0, 0.0, nullptr);
      if (!s.ok) {
        std::printf("FAILED %s: %s\n", p.params_signature().c_str(), s.error.c_str());
        ++failures;
        break;
      }
    }
    example::synchronize(on_device);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        calls;
    const double error = ops.max_error();
    if (error > 1e-2 * static_cast<double>(p.k)) {
      std::printf("WRONG %s: max error %g\n", p.params_signature().c_str(), error);
      ++failures;
    }
    const gemmtune::Lookup l = ctx.lookup(p);
    std::printf("%-58s %-40.40s %-8s %10.1f\n", (p.op_signature() + "," + p.params_signature()).c_str(),
                std::string(l.solution).c_str(), gemmtune::to_string(l.source).data(), us);
  }
  std::printf("%s\n", failures == 0 ? "all GEMMs ran and computed C correctly" : "FAILURES");
  return failures == 0 ? 0 : 1;
}
