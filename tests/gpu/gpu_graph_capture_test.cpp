// Every kind of CUDA solution runs inside a CUDA graph: an application that captures its GEMMs
// (an LLM server's decode step) and replays them gets the same C as a direct run. As such
// applications do, each solution runs once before the capture (first-call set-up is not
// capturable), then is captured in the strictest mode (global: any unsafe call from any thread
// during the capture fails it), with C reset between the capture and the replay, so that only the
// replay can have written it.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "context_options.hpp"
#include "device_test.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/cublas_default.hpp"
#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_provider.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune {
namespace {

using gpu_test::DeviceOperands;

// Captures one run of `solution` on the operands (`inputs` where given, with C still ops.c),
// replays it, and compares C with the reference; an empty string means it was captured, replayed
// and agreed.
std::string capture_replay_and_check(Solution& solution, DeviceOperands& ops,
                                     const std::optional<Operands>& inputs = std::nullopt) {
  const Operands used = inputs.value_or(ops.operands());
  if (std::string direct = gpu_test::run_and_check(solution, ops, used); !direct.empty()) {
    return "direct run: " + direct;
  }
  const auto stream = static_cast<cudaStream_t>(ops.backend.stream());
  ops.reset_c();
  ops.backend.synchronize();
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess) {
    return "cudaStreamBeginCapture failed";
  }
  const RunStatus status = solution.run(ops.problem, used, stream);
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  (void)cudaGetLastError();
  std::string error;
  if (!status) error = "run failed during capture: " + status.error;
  if (error.empty() && ended != cudaSuccess) {
    error = fmt::format("capture ended with {}", cudaGetErrorName(ended));
  }
  cudaGraphExec_t exec = nullptr;
  if (error.empty() && cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
    error = "cudaGraphInstantiate failed";
  }
  if (error.empty()) {
    ops.reset_c();  // what the capture may have written is gone: only the replay writes C
    ops.backend.synchronize();
    if (cudaGraphLaunch(exec, stream) != cudaSuccess) error = "cudaGraphLaunch failed";
    ops.backend.synchronize();
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  if (!error.empty()) return error;
  const gpu_test::Comparison cmp = gpu_test::compare_with_reference(ops, ops.read_c());
  return cmp.ok ? std::string() : cmp.detail;
}

class GraphCapture : public gpu_test::DeviceTest {};

TEST_F(GraphCapture, DefaultAndCublasLtIncludingSplitK) {
  const Problem p =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 1024, 16, 8192);
  DeviceOperands ops(*backend_, p, 1.0, 0.0);
  auto def = cuda::make_default_solution(p);
  EXPECT_EQ(capture_replay_and_check(*def, ops), "") << def->name();

  // The heuristic's first proposal and the first split-K variant (it uses the workspace).
  auto candidates = cuda::CublasLtProvider().enumerate(p, SearchOptions{});
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(capture_replay_and_check(*candidates.front(), ops), "") << candidates.front()->name();
  bool split = false;
  for (auto& c : candidates) {
    const auto config = cuda::parse_algo_name(c->name());
    if (!config || config->splitk <= 1) continue;
    EXPECT_EQ(capture_replay_and_check(*c, ops), "") << c->name();
    split = true;
    break;
  }
  EXPECT_TRUE(split) << "no split-K candidate among " << candidates.size();
}

TEST_F(GraphCapture, EverySkinnyKernelFamily) {
  for (std::int64_t n : {1, 8, 64}) {
    const Problem p =
        Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 1024, n, 2048);
    SCOPED_TRACE(fmt::format("n={}", n));
    DeviceOperands ops(*backend_, p, 1.0, 0.0);
    auto candidates = cuda::GemmtuneCudaProvider().enumerate(p, SearchOptions{});
    // One configuration of each kernel family the problem gets.
    std::vector<std::size_t> seen;
    for (auto& c : candidates) {
      const auto config = cuda::parse_skinny_solution_name(c->name());
      ASSERT_TRUE(config) << c->name();
      if (std::find(seen.begin(), seen.end(), config->index()) != seen.end()) continue;
      seen.push_back(config->index());
      EXPECT_EQ(capture_replay_and_check(*c, ops), "") << c->name();
    }
    // CUDA cores up to n = kSkinnyMaxN; tensor cores, TMA-fed tensor cores and wgmma at every n
    // here (compute capability 9.0, as the machines these tests run on).
    EXPECT_EQ(seen.size(), n <= cuda::kSkinnyMaxN ? 4u : 3u);
  }
}

// Default's ways round operands its algorithm turns down (a slice of a tensor, off the 16 bytes
// cuBLASLt wants), captured as an application would: ScaledGemm's aligned copies (stream-ordered
// scratch, which becomes the graph's own allocation and free) and GemmAndBias's GEMM then bias.
TEST_F(GraphCapture, DefaultOnOperandsItsAlgorithmRefuses) {
  struct Case {
    Problem problem;
    const char* shifted;  // "A", "scales" or "bias"
    std::size_t offset;
  };
  Problem fp8 = Problem::make(OpKind::ScaledGemm, DType::Float8E4M3, Transpose::T, Transpose::N,
                              144, 80, 208);
  fp8.c_type = DType::BFloat16;
  Problem with_bias = fp8;
  with_bias.bias_type = DType::BFloat16;
  const Problem gemm_and_bias =
      Problem::make(OpKind::GemmAndBias, DType::BFloat16, Transpose::T, Transpose::N, 264, 64, 128);
  for (const Case& c : {Case{fp8, "A", 1}, Case{fp8, "scales", 4}, Case{with_bias, "bias", 2},
                        Case{gemm_and_bias, "bias", 2}, Case{gemm_and_bias, "B", 2}}) {
    SCOPED_TRACE(fmt::format("{},{} with {} at +{} bytes", c.problem.op_signature(),
                             c.problem.params_signature(), c.shifted, c.offset));
    DeviceOperands ops(*backend_, c.problem, 1.0, 0.0);
    Operands inputs = ops.operands();
    gpu_test::ShiftedStorage storage;
    gpu_test::shift_operand(ops, inputs, c.shifted, c.offset, storage);
    auto def = cuda::make_default_solution(c.problem);
    EXPECT_EQ(capture_replay_and_check(*def, ops, inputs), "") << def->name();
  }
}

// An application's capture through a Context, on a stream the Context has not seen: a problem
// tuned to a gemmtune kernel is resolved and dispatched into the graph; an unseen problem is not
// tuned then (that would allocate, synchronize and time inside the capture) but runs Default and
// is tuned at its first call after; a problem tuned to a split-K algorithm whose workspace the
// stream does not have yet runs Default in the graph instead of allocating. The capture stays
// valid, and the replay writes every C. All-ones operands: every element of C is k.
TEST(GraphCaptureContext, DispatchesWithoutTuningOrAllocatingInsideTheCapture) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto dir = std::filesystem::temp_directory_path() / "gemmtune_gpu_graph_capture";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  struct Case {
    Problem problem;
    std::string solution;    // in the results file; empty: not in it
    std::uint16_t expected;  // k in bf16
    void* c = nullptr;
  };
  std::vector<Case> cases = {
      {parse_problem("GemmTunableOp_BFloat16_TN", "tn_1024_8_512_ld_512_512_1024"), "", 0x4400},
      {parse_problem("GemmTunableOp_BFloat16_TN", "tn_1024_16_8192_ld_8192_8192_1024"), "", 0x4600},
      {parse_problem("GemmTunableOp_BFloat16_TN", "tn_2048_8_512_ld_512_512_2048"), "", 0x4400}};
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  {
    const auto skinny = cuda::GemmtuneCudaProvider().enumerate(cases[0].problem, SearchOptions{});
    ASSERT_FALSE(skinny.empty());
    cases[0].solution = skinny.front()->name();
    for (auto& c : cuda::CublasLtProvider().enumerate(cases[1].problem, SearchOptions{})) {
      const auto config = cuda::parse_algo_name(c->name());
      if (config && config->splitk > 1 && c->workspace_bytes(cases[1].problem) > 0) {
        cases[1].solution = c->name();
        break;
      }
    }
    ASSERT_FALSE(cases[1].solution.empty()) << "no split-K algorithm that needs a workspace";
  }

  std::mutex log_mutex;
  std::vector<std::string> logs;
  Options options;
  options.backend = "cuda";
  options.tuning = true;
  options.max_tuning_duration_ms = 5;
  options.insert_device_ordinal = false;
  options.filename = (dir / "results.csv").string();
  options.untuned_filename = (dir / "untuned.csv").string();
  options.log = [&](std::string_view m) {
    const std::lock_guard lock(log_mutex);
    logs.emplace_back(m);
  };
  {
    std::ofstream out(options.filename);
    for (const auto& [key, value] : Context(options).validators()) {
      out << "Validator," << key << ',' << value << '\n';
    }
    for (const Case& c : cases) {
      if (c.solution.empty()) continue;
      out << c.problem.op_signature() << ',' << c.problem.params_signature() << ',' << c.solution
          << ",0.01\n";
    }
  }
  Context ctx(options);
  ASSERT_TRUE(ctx.load_report().accepted) << ctx.load_report().message;
  ASSERT_EQ(ctx.load_report().entries, 2u);

  const std::vector<std::uint16_t> ones(2048 * 8192, 0x3f80);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, ones.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, 8192 * 16 * 2), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, ones.data(), ones.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b, ones.data(), 8192 * 16 * 2, cudaMemcpyHostToDevice), cudaSuccess);
  for (Case& c : cases) ASSERT_EQ(cudaMalloc(&c.c, c.problem.m * c.problem.n * 2), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::vector<RunStatus> statuses;
  for (const Case& c : cases) statuses.push_back(ctx.gemm(c.problem, a, b, c.c, 1.0, 0.0, stream));
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture was invalidated";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_TRUE(statuses[i].ok) << cases[i].problem.params_signature() << ": " << statuses[i].error;
  }
  EXPECT_EQ(ctx.lookup(cases[0].problem).source, Source::Tuned);
  EXPECT_EQ(ctx.lookup(cases[0].problem).solution, cases[0].solution);
  EXPECT_EQ(ctx.lookup(cases[2].problem).source, Source::Untuned) << "tuned inside the capture";
  const auto logged = [&](std::string_view what) {
    const std::lock_guard lock(log_mutex);
    return std::any_of(logs.begin(), logs.end(),
                       [&](const std::string& m) { return m.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(logged("not tuned during a CUDA graph capture"));
  EXPECT_TRUE(logged("Default runs in the graph instead"));

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (const Case& c : cases) {
    ASSERT_EQ(cudaMemset(c.c, 0, c.problem.m * c.problem.n * 2), cudaSuccess);
  }
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  for (const Case& c : cases) {
    std::vector<std::uint16_t> out(c.problem.m * c.problem.n);
    ASSERT_EQ(cudaMemcpy(out.data(), c.c, out.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    for (const std::uint16_t v : out) {
      ASSERT_EQ(v, c.expected) << c.problem.params_signature() << ": the replay did not write C";
    }
  }

  // Outside a capture the unseen problem is tuned at its first call.
  ASSERT_TRUE(ctx.gemm(cases[2].problem, a, b, cases[2].c, 1.0, 0.0, stream).ok);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(ctx.lookup(cases[2].problem).source, Source::Tuned);

  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  for (Case& c : cases) cudaFree(c.c);
  std::filesystem::remove_all(dir);
}

// What the two tests below share: all-ones bf16 operands for "tn" problems up to 2048 × 8 × 512,
// a C for the captured GEMM and one for the other thread's, and a stream for each, all made before
// the capture begins (what the other thread does through gemmtune is then all that can disturb
// it), and freed at the end.
struct CaptureAndElsewhere {
  static constexpr std::uint16_t kK = 0x4400;  // k = 512 in bf16: every element of C
  void *a = nullptr, *b = nullptr, *c_captured = nullptr, *c_elsewhere = nullptr;
  cudaStream_t capturing = nullptr, other = nullptr;

  CaptureAndElsewhere() {
    const std::vector<std::uint16_t> ones(2048 * 512, 0x3f80);
    const bool made =
        cudaSetDevice(0) == cudaSuccess && cudaMalloc(&a, ones.size() * 2) == cudaSuccess &&
        cudaMalloc(&b, 512 * 8 * 2) == cudaSuccess &&
        cudaMalloc(&c_captured, 2048 * 8 * 2) == cudaSuccess &&
        cudaMalloc(&c_elsewhere, 2048 * 8 * 2) == cudaSuccess &&
        cudaMemcpy(a, ones.data(), ones.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaMemcpy(b, ones.data(), 512 * 8 * 2, cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaStreamCreateWithFlags(&capturing, cudaStreamNonBlocking) == cudaSuccess &&
        cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking) == cudaSuccess;
    if (!made) throw std::runtime_error("could not set up the operands and streams");
  }
  ~CaptureAndElsewhere() {
    for (cudaStream_t s : {capturing, other}) {
      if (s != nullptr) cudaStreamDestroy(s);
    }
    for (void* p : {a, b, c_captured, c_elsewhere}) cudaFree(p);
  }
  // Whether the first `elements` of C hold k (after the streams are done).
  static ::testing::AssertionResult holds_k(void* c, std::int64_t elements) {
    std::vector<std::uint16_t> out(static_cast<std::size_t>(elements));
    if (cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost) != cudaSuccess) {
      return ::testing::AssertionFailure() << "cudaMemcpy failed";
    }
    const auto wrong = std::find_if(out.begin(), out.end(), [](auto v) { return v != kK; });
    if (wrong == out.end()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "C[" << (wrong - out.begin()) << "] = " << *wrong << ": not written";
  }
  // Runs `elsewhere` on a thread of its own, begun and ended while `capturing` is captured in the
  // global mode after `in_graph` went into the capture; returns how the capture ended.
  template <typename InGraph, typename Elsewhere>
  cudaError_t capture_while(InGraph&& in_graph, Elsewhere&& elsewhere, cudaGraph_t* graph) {
    if (cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal) != cudaSuccess) {
      return cudaErrorUnknown;
    }
    in_graph();
    std::thread(elsewhere).join();
    const cudaError_t ended = cudaStreamEndCapture(capturing, graph);
    (void)cudaGetLastError();
    return ended;
  }
};

using gpu_test::context_options_in;

// An application that captures on one thread, in the strictest mode (global: an unsafe call from
// any thread fails the capture), while another thread's first call of a GEMM tunes it. The tuning
// allocates, frees, fills, times and synchronizes on gemmtune's own streams, and the thread's end
// releases its cuBLAS handles; none of it belongs to the graph, so it must neither fail nor
// invalidate the capture (solutions/cuda/capture_mode.hpp, cublas_handle.hpp).
TEST(GraphCaptureContext, TuningOnAnotherThreadLeavesACaptureValid) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto dir = std::filesystem::temp_directory_path() / "gemmtune_gpu_capture_other_thread";
  std::mutex log_mutex;
  std::string logs;
  Options options = context_options_in(dir, log_mutex, logs);
  options.tuning = true;
  options.max_tuning_duration_ms = 5;
  Context ctx(options);
  const Problem captured =
      parse_problem("GemmTunableOp_BFloat16_TN", "tn_1024_8_512_ld_512_512_1024");
  const Problem tuned_elsewhere =
      parse_problem("GemmTunableOp_BFloat16_TN", "tn_2048_8_512_ld_512_512_2048");
  CaptureAndElsewhere x;
  // The captured GEMM's first call, outside the capture, tunes it (as an application warms up).
  ASSERT_TRUE(ctx.gemm(captured, x.a, x.b, x.c_captured, 1.0, 0.0, x.capturing).ok) << logs;
  ASSERT_EQ(cudaStreamSynchronize(x.capturing), cudaSuccess);

  RunStatus in_graph, elsewhere;
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = x.capture_while(
      [&] { in_graph = ctx.gemm(captured, x.a, x.b, x.c_captured, 1.0, 0.0, x.capturing); },
      [&] { elsewhere = ctx.gemm(tuned_elsewhere, x.a, x.b, x.c_elsewhere, 1.0, 0.0, x.other); },
      &graph);
  ASSERT_EQ(ended, cudaSuccess) << "the capture was invalidated: " << cudaGetErrorName(ended)
                                << "\n"
                                << logs;
  EXPECT_TRUE(in_graph.ok) << in_graph.error;
  EXPECT_TRUE(elsewhere.ok) << elsewhere.error;
  EXPECT_EQ(ctx.lookup(tuned_elsewhere).source, Source::Tuned) << logs;
  EXPECT_EQ(logs.find("failed"), std::string::npos) << logs;

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaMemset(x.c_captured, 0, 1024 * 8 * 2), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, x.capturing), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(x.capturing), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(x.other), cudaSuccess);
  EXPECT_TRUE(x.holds_k(x.c_captured, 1024 * 8)) << "the replay";
  EXPECT_TRUE(x.holds_k(x.c_elsewhere, 2048 * 8)) << "the other thread";
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::filesystem::remove_all(dir);
}

// The same for a thread that only runs Default (no tuning) on a stream cuBLAS has not seen: setting
// a handle's stream and running cuBLAS there must not fail a capture in the global mode either.
TEST(GraphCaptureContext, DefaultOnAnotherThreadAndStreamLeavesACaptureValid) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto dir = std::filesystem::temp_directory_path() / "gemmtune_gpu_capture_default";
  std::mutex log_mutex;
  std::string logs;
  Context ctx(context_options_in(dir, log_mutex, logs));
  const Problem problem =
      parse_problem("GemmTunableOp_BFloat16_TN", "tn_1024_8_512_ld_512_512_1024");
  CaptureAndElsewhere x;
  ASSERT_TRUE(ctx.gemm(problem, x.a, x.b, x.c_captured, 1.0, 0.0, x.capturing).ok) << logs;
  ASSERT_EQ(cudaStreamSynchronize(x.capturing), cudaSuccess);

  RunStatus in_graph, elsewhere;
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = x.capture_while(
      [&] { in_graph = ctx.gemm(problem, x.a, x.b, x.c_captured, 1.0, 0.0, x.capturing); },
      [&] { elsewhere = ctx.gemm(problem, x.a, x.b, x.c_elsewhere, 1.0, 0.0, x.other); }, &graph);
  EXPECT_EQ(ended, cudaSuccess) << "the capture was invalidated: " << cudaGetErrorName(ended);
  EXPECT_TRUE(in_graph.ok) << in_graph.error;
  EXPECT_TRUE(elsewhere.ok) << elsewhere.error;
  EXPECT_EQ(ctx.lookup(problem).solution, "Default");
  if (graph != nullptr) cudaGraphDestroy(graph);
  ASSERT_EQ(cudaStreamSynchronize(x.other), cudaSuccess);
  EXPECT_TRUE(x.holds_k(x.c_elsewhere, 1024 * 8)) << "the other thread";
  std::filesystem::remove_all(dir);
}
}  // namespace
}  // namespace gemmtune
