// record_tune_lookup: record → tune → lookup, in one program.
//
//   1. record  A Context in record mode runs the application's GEMMs; each problem without a
//              result is appended once to the untuned file (tunableop_untuned<device>.csv).
//   2. tune    `gemmtune tune UNTUNED -o RESULTS` tunes every recorded problem (or, with
//              --in-process, Context::tune_file does the same from code).
//   3. lookup  A fresh Context loads the results: every GEMM now runs its tuned solution.
//
//   record_tune_lookup [--in-process] [--cli PATH]
//
// Runs in the current directory, on the backend GEMMTUNE_BACKEND says (auto: CUDA where a GPU is
// present). Exits 1 unless every problem ends up tuned and every GEMM computes C correctly.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/gemmtune.hpp"
#include "operands.hpp"

namespace {

std::vector<gemmtune::Problem> application_gemms() {
  return {
      gemmtune::parse_problem("GemmTunableOp_float_NN", "nn_192_192_192_ld_192_192_192"),
      gemmtune::parse_problem("GemmTunableOp_float_TN", "tn_256_64_128_ld_128_128_256"),
      gemmtune::parse_problem("GemmTunableOp_BFloat16_TN", "tn_256_32_256_ld_256_256_256"),
      gemmtune::parse_problem("GemmStridedBatchedTunableOp_float_NN",
                              "nn_64_64_64_B_4_ld_64_64_64"),
  };
}

// Runs every GEMM `calls` times; returns the number of failures.
int run_all(gemmtune::Context& ctx, int calls, bool print) {
  const bool on_device = ctx.backend() != "cpu";
  int failures = 0;
  for (const auto& p : application_gemms()) {
    example::Operands ops(p, on_device);
    for (int i = 0; i < calls; ++i) {
      if (const auto s = ctx.gemm(p, ops.a(), ops.b(), ops.c()); !s.ok) {
        std::printf("  FAILED %s: %s\n", p.params_signature().c_str(), s.error.c_str());
        ++failures;
      }
    }
    example::synchronize(on_device);
    if (ops.max_error() > 1e-2 * static_cast<double>(p.k)) {
      std::printf("  WRONG C for %s\n", p.params_signature().c_str());
      ++failures;
    }
    if (print) {
      const auto l = ctx.lookup(p);
      std::printf("  %-40s %-12s -> %s\n", p.params_signature().c_str(),
                  gemmtune::to_string(l.source).data(), std::string(l.solution).c_str());
    }
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  bool in_process = false;
  std::string cli = GEMMTUNE_CLI;
  if (const char* env = std::getenv("GEMMTUNE_CLI")) cli = env;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--in-process") in_process = true;
    if (arg == "--cli" && i + 1 < argc) cli = argv[++i];
  }
  gemmtune::Options options = gemmtune::Options::from_environment();
  options.tuning = false;
  options.max_tuning_duration_ms = 10;
  std::string results, untuned, backend;

  std::printf("1. record\n");
  {
    gemmtune::Options o = options;
    o.record_untuned = true;
    gemmtune::Context ctx(o);
    results = ctx.filename();
    untuned = ctx.untuned_filename();
    backend = std::string(ctx.backend());
    if (run_all(ctx, 3, true) != 0) return 1;
  }
  std::printf("   recorded into %s\n", untuned.c_str());

  std::printf("2. tune (%s)\n", in_process ? "Context::tune_file" : cli.c_str());
  if (in_process) {
    gemmtune::Context ctx(options);
    const gemmtune::TuneFileReport r = ctx.tune_file(untuned);
    if (!r.file_error.empty()) {
      std::fprintf(stderr, "   %s\n", r.file_error.c_str());
      return 1;
    }
    std::printf("   %zu tuned, %zu already tuned, %zu failed\n", r.tuned, r.already_tuned,
                r.failed.size());
    if (!r.ok()) return 1;
  } else {
    const std::string command = "\"" + cli + "\" tune " + untuned + " -o " + results +
                                " --backend " + backend + " --max-tuning-duration-ms 10";
    std::printf("   %s\n", command.c_str());
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) return 1;
  }

  std::printf("3. lookup\n");
  gemmtune::Context ctx(options);
  std::printf("   %s: %zu results\n", ctx.filename().c_str(), ctx.load_report().entries);
  const int failures = run_all(ctx, 3, true);
  int untuned_left = 0;
  for (const auto& p : application_gemms()) untuned_left += !ctx.lookup(p).tuned();
  std::printf("%s\n", failures == 0 && untuned_left == 0
                          ? "every GEMM ran its tuned solution"
                          : "FAILED: some GEMMs failed or are not tuned");
  return failures == 0 && untuned_left == 0 ? 0 : 1;
}
