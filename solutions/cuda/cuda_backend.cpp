#include "solutions/cuda/cuda_backend.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <fmt/format.h>

#include "solutions/cuda/capture_mode.hpp"
#include "solutions/cuda/compare_outputs.hpp"
#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/cuda_timer.hpp"
#include "solutions/cuda/fill_random.hpp"
#include "solutions/cuda/graph_runs.hpp"
#include "solutions/cuda/host_convert.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// The allocations the tuner's operand copies are spread over (see read_properties). Eight is the
// count measured: it left about 60% of the spread one allocation adds, not the 35% that eight
// independent allocations would leave.
constexpr int kOperandPlacements = 8;

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  GEMMTUNE_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

// Made current before the stream member is created, hence a function of its own.
int select_device(int ordinal) {
  const int count = cuda_device_count();
  if (ordinal < 0 || ordinal >= count) {
    GEMMTUNE_THROW("CUDA device {} does not exist: this machine has {} CUDA device(s)", ordinal,
                   count);
  }
  GEMMTUNE_CUDA_CHECK(cudaSetDevice(ordinal));
  return ordinal;
}

DeviceProperties read_properties(int ordinal) {
  cudaDeviceProp prop{};
  GEMMTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceProperties p;
  p.backend = "cuda";
  p.ordinal = ordinal;
  p.name = prop.name;
  p.architecture = fmt::format("sm_{}{}", prop.major, prop.minor);
  p.memory_bytes = prop.totalGlobalMem;
  p.last_level_cache_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, ordinal));
  p.compute_units = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  // On an H200, the same solutions timed on two allocations of the same operands stood 1.35% apart
  // (standard deviation of their ratio to Default, decode GEMMs; 0.4% timed twice on one), eight
  // copies sliced from one allocation left 1.18%, and eight allocations 0.91%
  // (bench/results/2026-11-28-h200-placement.md).
  p.operand_placements = kOperandPlacements;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) == cudaSuccess) {
    p.pci_bus_id = bus_id;
  } else {
    (void)cudaGetLastError();  // not sticky; the monitor then finds the device by index
  }
  return p;
}

cuda::FillType fill_type(DType dtype) {
  switch (dtype) {
    case DType::Float32:
    case DType::TF32:
    case DType::ComplexFloat32:
      return cuda::FillType::F32;
    case DType::Float64:
    case DType::ComplexFloat64:
      return cuda::FillType::F64;
    case DType::Float16:
      return cuda::FillType::F16;
    case DType::BFloat16:
      return cuda::FillType::BF16;
    case DType::Float8E4M3:
      return cuda::FillType::E4M3;
    case DType::Float8E5M2:
      return cuda::FillType::E5M2;
    case DType::Float8E4M3Fnuz:
    case DType::Float8E5M2Fnuz:
      break;
  }
  GEMMTUNE_THROW("{} cannot be stored on a CUDA device", info(dtype).cli_name);
}

void expect_fits(const Buffer& buffer, std::size_t bytes, const char* what) {
  GEMMTUNE_EXPECT(bytes <= buffer.bytes(), "{} of {} bytes exceeds the buffer's {} bytes", what,
                  bytes, buffer.bytes());
}

}  // namespace

CudaBackend::CudaBackend(int ordinal)
    : ordinal_(select_device(ordinal)), properties_(read_properties(ordinal_)) {}

CudaBackend::~CudaBackend() = default;

std::unique_ptr<DeviceScope> CudaBackend::make_current() const {
  // What holds it (a tuning, a rebuild) is gemmtune's own device work, which an application's
  // capture on another thread does not see: relaxed, so that it neither fails nor invalidates
  // that capture (capture_mode.hpp).
  struct Scope final : DeviceScope {
    explicit Scope(int ordinal) : device(ordinal) {}
    cuda::ScopedDevice device;
    cuda::RelaxedCaptureMode relaxed;
  };
  return std::make_unique<Scope>(ordinal_);
}

Environment CudaBackend::versions() const {
  const cuda::ScopedDevice device(ordinal_);
  int runtime = 0, driver = 0, major = 0, minor = 0, patch = 0;
  GEMMTUNE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  GEMMTUNE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  GEMMTUNE_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
  GEMMTUNE_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
  GEMMTUNE_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
  const int cc_major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal_);
  const int cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal_);
  Environment env;
  env.set("CUDA_RUNTIME_VERSION", std::to_string(runtime));
  env.set("CUDA_DRIVER_VERSION", std::to_string(driver));
  env.set("CUBLAS_VERSION", std::to_string(major * 10000 + minor * 100 + patch));
  env.set("CUBLASLT_VERSION", std::to_string(cublasLtGetVersion()));
  env.set("GPU_NAME", properties_.name);
  env.set("GPU_COMPUTE_CAPABILITY", fmt::format("{}.{}", cc_major, cc_minor));
  env.set("GPU_SM_COUNT", std::to_string(properties_.compute_units));
  return env;
}

std::unique_ptr<Buffer> CudaBackend::allocate(std::size_t bytes) {
  const cuda::ScopedDevice device(ordinal_);
  return std::make_unique<cuda::DeviceBuffer>(bytes);
}

void CudaBackend::fill_random(Buffer& buffer, DType dtype, std::int64_t elements,
                              std::uint64_t seed) {
  GEMMTUNE_EXPECT(elements >= 0, "negative element count {}", elements);
  const std::int64_t scalars = elements * cuda::scalars_per_element(dtype);
  expect_fits(buffer, static_cast<std::size_t>(elements) * element_bytes(dtype), "fill_random");
  const cuda::ScopedDevice device(ordinal_);
  GEMMTUNE_CUDA_CHECK(
      cuda::launch_fill_random(buffer.data(), fill_type(dtype), scalars, seed, stream_.get()));
}

void CudaBackend::fill_bytes(Buffer& buffer, unsigned char value) {
  const cuda::ScopedDevice device(ordinal_);
  GEMMTUNE_CUDA_CHECK(cudaMemsetAsync(buffer.data(), value, buffer.bytes(), stream_.get()));
}

void CudaBackend::copy(Buffer& dst, const Buffer& src, std::size_t bytes) {
  expect_fits(dst, bytes, "copy");
  expect_fits(src, bytes, "copy");
  const cuda::ScopedDevice device(ordinal_);
  GEMMTUNE_CUDA_CHECK(
      cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream_.get()));
}

std::vector<double> CudaBackend::read_as_double(const Buffer& src, DType dtype,
                                                std::int64_t elements) {
  GEMMTUNE_EXPECT(elements >= 0, "negative element count {}", elements);
  const std::size_t bytes = static_cast<std::size_t>(elements) * element_bytes(dtype);
  expect_fits(src, bytes, "read_as_double");
  std::vector<unsigned char> host(bytes);
  {
    const cuda::ScopedDevice device(ordinal_);
    GEMMTUNE_CUDA_CHECK(
        cudaMemcpyAsync(host.data(), src.data(), bytes, cudaMemcpyDeviceToHost, stream_.get()));
  }
  synchronize();
  return cuda::widen_to_double(host.data(), dtype, elements);
}

const void* CudaBackend::stream_identity(void* stream) const {
  // cudaStreamPerThread is one value for a stream of each thread; the legacy default stream (0)
  // is one stream for every thread, whose work runs in order, and so is any created stream.
  // A thread's key is never given to a later thread (whose stream is another, while the ended
  // thread's work may still run), so it is not an address of the thread's, which could be reused:
  // a number with the top bit set, which no handle (a user-space address) has.
  if (static_cast<cudaStream_t>(stream) != cudaStreamPerThread) return stream;
  static std::atomic<std::uint64_t> threads{0};
  thread_local const std::uint64_t this_thread = threads.fetch_add(1) | (std::uint64_t{1} << 63);
  return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(this_thread));
}

bool CudaBackend::capturing(void* stream) const {
  const cudaError_t pending = cudaPeekAtLastError();  // the application's, left as it is
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(static_cast<cudaStream_t>(stream), &status);
  if (e == cudaSuccess) return status != cudaStreamCaptureStatusNone;
  // The legacy default stream while another stream captures in a mode that forbids touching it
  // (cudaErrorStreamCaptureImplicit): as good as capturing. Any other error is no capture's; the
  // run that follows reports it.
  (void)cuda::launch_error_since(pending);
  return e == cudaErrorStreamCaptureImplicit;
}

std::size_t CudaBackend::available_memory_bytes() const {
  const cuda::ScopedDevice device(ordinal_);
  std::size_t free_bytes = 0, total_bytes = 0;
  GEMMTUNE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

void CudaBackend::synchronize() {
  const cuda::ScopedDevice device(ordinal_);
  const cudaError_t status = cudaStreamSynchronize(stream_.get());
  if (status == cudaSuccess) return;
  // Sticky or not is asked of this stream again, not with a device-wide synchronize
  // (cuda_sticky_error), which would invalidate a graph another thread of the application is
  // capturing: a sticky error comes back from every later call, an ordinary one is read once.
  (void)cudaGetLastError();
  const cudaError_t again = cuda::is_sticky(status) ? status : cudaStreamSynchronize(stream_.get());
  if (again != cudaSuccess) {
    (void)cudaGetLastError();
    // A DeviceError, not a plain Error: the tuner must end the problem (and the run on this
    // device) rather than blame the candidate in flight and go on with a dead context.
    throw DeviceError(
        __FILE__, __LINE__,
        fmt::format("sticky CUDA error, the device context is unusable until the process "
                    "restarts: {} (cudaStreamSynchronize on device {})",
                    cuda::describe(again), ordinal_));
  }
  cuda::throw_cuda_error(__FILE__, __LINE__, "cudaStreamSynchronize(stream)", status);
}

void CudaBackend::flush_cache() {
  const cuda::ScopedDevice device(ordinal_);
  if (!flush_buffer_) {
    // Twice the L2, so that what the next iteration reads is surely gone.
    const std::size_t bytes =
        std::max<std::size_t>(2 * properties_.last_level_cache_bytes, 1 << 20);
    flush_buffer_ = std::make_unique<cuda::DeviceBuffer>(bytes);
  }
  GEMMTUNE_CUDA_CHECK(
      cudaMemsetAsync(flush_buffer_->data(), 0, flush_buffer_->bytes(), stream_.get()));
}

cuda::StreamHold& CudaBackend::stream_hold() {
  if (!stream_hold_) {
    const cuda::ScopedDevice device(ordinal_);
    stream_hold_ = std::make_unique<cuda::StreamHold>();
  }
  return *stream_hold_;
}

std::unique_ptr<IterationTimer> CudaBackend::make_timer(TimingMode mode) {
  if (mode == TimingMode::Immediate) return std::make_unique<cuda::EventTimer>(stream_.get());
  return std::make_unique<cuda::EventTimer>(stream_.get(), &stream_hold());
}

std::unique_ptr<CapturedRuns> CudaBackend::capture_runs(
    const std::function<RunStatus(void* stream)>& issue, int runs, std::string& why) {
  const cuda::ScopedDevice device(ordinal_);
  auto graph = std::make_unique<cuda::GraphRuns>(issue, runs, stream_.get(), stream_hold());
  if (!graph->ok()) {
    why = graph->error();
    return nullptr;
  }
  why.clear();
  return graph;
}

namespace {

// The check's layout of a problem's C, or nullopt for types the device check does not cover
// (complex, the fnuz fp8 types): those are compared on the host.
std::optional<cuda::OutputLayout> check_layout(const Problem& p) {
  switch (p.c_type) {
    case DType::ComplexFloat32:
    case DType::ComplexFloat64:
    case DType::Float8E4M3Fnuz:
    case DType::Float8E5M2Fnuz:
      return std::nullopt;
    default:
      return cuda::OutputLayout{p.m, p.n, p.blas_ldc(), p.batch_stride_c(), p.batch};
  }
}

}  // namespace

cuda::CompareTotals CudaBackend::run_totals(
    const std::function<cudaError_t(cuda::CompareTotals*)>& launch,
    const std::function<cudaError_t(cuda::CompareTotals*)>& second) {
  const cuda::ScopedDevice device(ordinal_);
  if (!totals_) totals_ = std::make_unique<cuda::DeviceBuffer>(sizeof(cuda::CompareTotals));
  auto* totals = static_cast<cuda::CompareTotals*>(totals_->data());
  cuda::CompareTotals host{};
  host.worst_element = ~0ull;
  GEMMTUNE_CUDA_CHECK(
      cudaMemcpyAsync(totals, &host, sizeof host, cudaMemcpyHostToDevice, stream_.get()));
  if (const cudaError_t e = launch(totals); e != cudaSuccess) {
    cuda::throw_cuda_error(__FILE__, __LINE__, "the device check's kernel launch", e);
  }
  if (const cudaError_t e = second ? second(totals) : cudaSuccess; e != cudaSuccess) {
    cuda::throw_cuda_error(__FILE__, __LINE__, "the device check's second kernel launch", e);
  }
  GEMMTUNE_CUDA_CHECK(
      cudaMemcpyAsync(&host, totals, sizeof host, cudaMemcpyDeviceToHost, stream_.get()));
  synchronize();
  return host;
}

std::optional<double> CudaBackend::output_rms(const Problem& problem, const Buffer& output) {
  const auto layout = check_layout(problem);
  if (!layout) return std::nullopt;
  const auto totals = run_totals([&](cuda::CompareTotals* t) {
    return cuda::launch_sum_squares(output.data(), fill_type(problem.c_type), *layout, t,
                                    stream_.get());
  });
  return totals.finite_count > 0
             ? std::sqrt(totals.sum_squares / static_cast<double>(totals.finite_count))
             : 0.0;
}

std::optional<CheckResult> CudaBackend::compare_outputs(const Problem& problem,
                                                        const Buffer& reference,
                                                        const Buffer& candidate,
                                                        const Tolerance& tolerance) {
  const auto layout = check_layout(problem);
  if (!layout) return std::nullopt;
  const auto type = fill_type(problem.c_type);
  auto compare = [&](cuda::CompareTotals* t) {
    return cuda::launch_compare(reference.data(), candidate.data(), type, *layout, tolerance.atol,
                                tolerance.rtol, t, stream_.get());
  };
  auto find_worst = [&](cuda::CompareTotals* t) {
    return cuda::launch_find_worst(reference.data(), candidate.data(), type, *layout,
                                   tolerance.atol, tolerance.rtol, t, stream_.get());
  };
  const auto totals = run_totals(compare, find_worst);
  CheckResult r;
  r.tolerance = tolerance;
  r.mismatches = static_cast<std::int64_t>(totals.mismatches);
  r.passed = r.mismatches == 0;
  std::memcpy(&r.worst_ratio, &totals.worst_ratio_bits, sizeof r.worst_ratio);
  if (totals.worst_element != ~0ull) {
    const auto e = static_cast<std::int64_t>(totals.worst_element);
    r.worst_row = e % problem.m;
    r.worst_col = (e / problem.m) % problem.n;
    r.worst_batch = e / (problem.m * problem.n);
    const std::int64_t at =
        r.worst_batch * layout->batch_stride + r.worst_col * layout->ldc + r.worst_row;
    r.expected = read_element(reference, problem.c_type, at);
    r.actual = read_element(candidate, problem.c_type, at);
    r.worst_abs_error = std::fabs(r.actual - r.expected);
  }
  return r;
}

double CudaBackend::read_element(const Buffer& buffer, DType dtype, std::int64_t index) {
  const std::size_t bytes = element_bytes(dtype);
  unsigned char host[16] = {};
  {
    const cuda::ScopedDevice device(ordinal_);
    GEMMTUNE_CUDA_CHECK(cudaMemcpyAsync(
        host,
        static_cast<const unsigned char*>(buffer.data()) + static_cast<std::size_t>(index) * bytes,
        bytes, cudaMemcpyDeviceToHost, stream_.get()));
  }
  synchronize();
  return cuda::widen_to_double(host, dtype, 1).front();
}

}  // namespace gemmtune
