// ctx.gemm on CUDA against the same cuBLASLt algorithm called directly (target: the Context adds
// <= 1 us per call).
//
// The problem is tuned to the cuBLASLt heuristic's first algorithm through a results file, so the
// Context dispatches exactly that algorithm. Three ways to run it, timed alike on the host (a
// batch of kBatch enqueues per iteration, the stream drained outside the timed region, so that
// the numbers are the host cost of a call and never the GPU's queue filling up):
//   BM_CudaDirectCublasLt   cublasLtMatmul with descriptors built here and the same algo
//   BM_CudaSolutionRun      the engine's LtSolution::run (descriptors reused, alignment checks)
//   BM_CudaContextGemm      ctx.gemm: hash, lookup, resolved solution, workspace, run
// BM_CudaContextGemmEndToEnd adds a stream synchronisation per call (latency, for scale).
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "drivers/backend_factory.hpp"
#include "gemmtune/gemmtune.hpp"
#include "solutions/cuda/cublaslt_solution.hpp"
#include "solutions/cuda/register_cuda.hpp"

namespace {

using gemmtune::Problem;
constexpr int kBatch = 200;

#define BENCH_CHECK(call)                                                              \
  do {                                                                                 \
    if (auto status_ = (call); status_ != 0) {                                         \
      throw std::runtime_error(fmt::format("{} failed: {}", #call, int(status_)));     \
    }                                                                                  \
  } while (false)

struct CudaSetup {
  Problem problem = Problem::make(gemmtune::OpKind::Gemm, gemmtune::DType::BFloat16,
                                  gemmtune::Transpose::T, gemmtune::Transpose::N, 256, 256, 256);
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               fmt::format("gemmtune-overhead-{}.csv", ::getpid());
  std::unique_ptr<gemmtune::Context> ctx;
  gemmtune::BackendSession session;
  std::unique_ptr<gemmtune::Solution> solution;  // the same algorithm, from the engine
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;
  void *a = nullptr, *b = nullptr, *c = nullptr, *workspace = nullptr;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  std::string name;

  CudaSetup() {
    session = gemmtune::open_backend(gemmtune::BackendKind::Cuda, 0);
    for (auto& s : session.registry->enumerate("cuda", problem, {})) {
      if (s->name().rfind("Gemm_Cublaslt", 0) == 0 && s->supports(problem)) {
        solution = std::move(s);
        break;
      }
    }
    if (!solution) throw std::runtime_error("no cuBLASLt algorithm for the problem");
    name = solution->name();
    const auto* lt = dynamic_cast<gemmtune::cuda::LtSolution*>(solution.get());
    algo = *lt->algo();
    workspace_bytes = solution->workspace_bytes(problem);

    gemmtune::Options o;
    o.backend = "cuda";
    o.filename = "/nonexistent/probe.csv";
    o.log = [](std::string_view) {};
    std::string text;
    {
      gemmtune::Context probe(o);
      for (const auto& [k, v] : probe.validators()) text += fmt::format("Validator,{},{}\n", k, v);
    }
    text += fmt::format("{},{},{},0.01\n", problem.op_signature(), problem.params_signature(), name);
    std::ofstream(file) << text;
    o.filename = file.string();
    o.insert_device_ordinal = false;
    ctx = std::make_unique<gemmtune::Context>(o);
    const gemmtune::Lookup l = ctx->lookup(problem);
    if (!l.tuned() || l.solution != name) {
      throw std::runtime_error(fmt::format("the Context would run {} ({}), not {}", l.solution,
                                           gemmtune::to_string(l.source), name));
    }

    BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::size_t bytes = 2 * 256 * 256;
    BENCH_CHECK(cudaMalloc(&a, bytes));
    BENCH_CHECK(cudaMalloc(&b, bytes));
    BENCH_CHECK(cudaMalloc(&c, bytes));
    BENCH_CHECK(cudaMemset(a, 0x3c, bytes));  // bf16 0x3c3c ~ 0.0115: small, non-zero
    BENCH_CHECK(cudaMemset(b, 0x3c, bytes));
    BENCH_CHECK(cudaMalloc(&workspace, std::max<std::size_t>(workspace_bytes, 1)));

    // The direct call: descriptors built here, TN bf16 with fp32 compute, as PyTorch does.
    BENCH_CHECK(cublasLtCreate(&handle));
    BENCH_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    BENCH_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    BENCH_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n));
    BENCH_CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, 256, 256, 256));
    BENCH_CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, 256, 256, 256));
    BENCH_CHECK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, 256, 256, 256));
  }

  ~CudaSetup() {
    cudaStreamSynchronize(stream);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(handle);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(workspace);
    cudaStreamDestroy(stream);
    std::error_code ec;
    std::filesystem::remove(file, ec);
  }

  void direct() {
    const float alpha = 1, beta = 0;
    BENCH_CHECK(cublasLtMatmul(handle, desc, &alpha, a, la, b, lb, &beta, c, lc, c, lc, &algo,
                               workspace, workspace_bytes, stream));
  }
};

CudaSetup& setup() {
  static CudaSetup s;
  return s;
}

template <typename F>
void time_batches(benchmark::State& state, F&& call) {
  CudaSetup& s = setup();
  for (int i = 0; i < 20; ++i) call(s);  // warm: module load, handles, the pool's workspace
  BENCH_CHECK(cudaStreamSynchronize(s.stream));
  double total_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) call(s);
    const auto t1 = std::chrono::steady_clock::now();
    BENCH_CHECK(cudaStreamSynchronize(s.stream));
    const double dt = std::chrono::duration<double>(t1 - t0).count();
    total_s += dt;
    state.SetIterationTime(dt);
  }
  state.counters["us_per_call"] =
      total_s * 1e6 / (static_cast<double>(state.iterations()) * kBatch);
  state.SetLabel(s.name);
}

void BM_CudaDirectCublasLt(benchmark::State& state) {
  time_batches(state, [](CudaSetup& s) { s.direct(); });
}
void BM_CudaSolutionRun(benchmark::State& state) {
  time_batches(state, [](CudaSetup& s) {
    gemmtune::Operands ops;
    ops.a = s.a;
    ops.b = s.b;
    ops.c = s.c;
    ops.workspace = s.workspace;
    ops.workspace_bytes = s.workspace_bytes;
    if (!s.solution->run(s.problem, ops, s.stream).ok) throw std::runtime_error("run failed");
  });
}
void BM_CudaContextGemm(benchmark::State& state) {
  time_batches(state, [](CudaSetup& s) {
    if (!s.ctx->gemm(s.problem, s.a, s.b, s.c, 1.0, 0.0, s.stream).ok) {
      throw std::runtime_error("ctx.gemm failed");
    }
  });
}
void BM_CudaContextGemmEndToEnd(benchmark::State& state) {
  CudaSetup& s = setup();
  for (auto _ : state) {
    if (!s.ctx->gemm(s.problem, s.a, s.b, s.c, 1.0, 0.0, s.stream).ok) {
      throw std::runtime_error("ctx.gemm failed");
    }
    BENCH_CHECK(cudaStreamSynchronize(s.stream));
  }
}
void BM_CudaDirectEndToEnd(benchmark::State& state) {
  CudaSetup& s = setup();
  for (auto _ : state) {
    s.direct();
    BENCH_CHECK(cudaStreamSynchronize(s.stream));
  }
}

BENCHMARK(BM_CudaDirectCublasLt)->UseManualTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_CudaSolutionRun)->UseManualTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_CudaContextGemm)->UseManualTime()->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_CudaDirectEndToEnd)->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(BM_CudaContextGemmEndToEnd)->Repetitions(3)->ReportAggregatesOnly(true);

}  // namespace
