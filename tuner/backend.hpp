// Backend: the one place an accelerator plugs into gemmtune.
//
// The engine (profiler, tuner) only ever talks to a device through this interface: properties,
// buffers, random fill, copies, synchronisation, a per-iteration timer, cache flush and the
// versions recorded as validators. Implementations live under solutions/<backend>/ (cpu, cuda).
// Buffers and timers are RAII objects owned by the caller; their destructors never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuner/dtype.hpp"
#include "tuner/environment.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/solution.hpp"
#include "tuner/timing_policy.hpp"

namespace gemmtune {

struct DeviceProperties {
  std::string backend;                     // "cpu", "cuda", ...
  int ordinal = 0;                         // device index within the backend
  std::string name;                        // "NVIDIA H200", "AMD EPYC 9654 ..."
  std::string architecture;                // "sm_90" / compute capability, or the CPU ISA
  std::size_t memory_bytes = 0;            // device memory (host memory for the CPU)
  std::size_t last_level_cache_bytes = 0;  // read from the device or system, never assumed
  int compute_units = 0;                   // SMs, or CPU cores
  // Separate allocations the rotating operand copies are spread over (plan_rotation), with a copy
  // in each. Where a GEMM's speed depends on which allocation its operands lie in, as on a GPU,
  // one allocation is a sample of one: the tuner's choice would be right for its own allocation
  // and not for a program's. 1 = one allocation per operand.
  int operand_placements = 1;
  // "0000:3b:00.0" (domain:bus:device.function), which names the device to other tools (NVML)
  // whatever CUDA_VISIBLE_DEVICES says; empty where the backend has none (the CPU).
  std::string pci_bus_id;
};

// Memory on the backend's device. Moving the owner moves the allocation.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual void* data() const = 0;
  virtual std::size_t bytes() const = 0;
};

// Times iterations on the device: a begin/end pair around each iteration, samples read after the
// device has finished them. On the CPU a steady clock; on CUDA a pair of events per iteration.
class IterationTimer {
 public:
  virtual ~IterationTimer() = default;
  virtual void begin_iteration() = 0;
  virtual void end_iteration() = 0;
  // Waits for the timed work and returns one sample (ms) per iteration since the last collect.
  virtual std::vector<double> collect_ms() = 0;
};

// Runs captured once and replayed as a unit (a CUDA graph), as a program that captures its GEMMs
// runs them: neither an event nor a launch gap between two runs.
class CapturedRuns {
 public:
  virtual ~CapturedRuns() = default;
  // Replays every captured run once between one pair of timing points, queued so that the host's
  // time to launch the replay is not in it, and waits for it: ms per run; nullopt where this
  // replay could not be timed (the stream was held until its timeout).
  virtual std::optional<double> replay_ms_per_run() = 0;
};

// While it lives, a backend's device is the calling thread's current device (see
// Backend::make_current); its end restores the one before.
class DeviceScope {
 public:
  virtual ~DeviceScope() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual const DeviceProperties& properties() const = 0;
  // Makes this backend's device the calling thread's current one for the scope's life. Providers
  // enumerate and rebuild solutions on "the current device" (cuBLASLt's heuristic and checks,
  // capability queries), so whoever asks them for a backend holds its scope; null where the
  // backend has no current device (the CPU).
  virtual std::unique_ptr<DeviceScope> make_current() const { return nullptr; }
  // Versions of everything that can change a result: runtime, driver, BLAS libraries, device.
  virtual Environment versions() const = 0;

  // The stream (or queue) solutions run on; nullptr on the CPU.
  virtual void* stream() const = 0;
  // Whether work issued to a caller's `stream` is being captured into a graph (CUDA) rather than
  // run: nothing may allocate, free, synchronize or time on the device then without failing the
  // capture, so the Context neither tunes nor grows a workspace. False where there are no graphs.
  virtual bool capturing(void* /*stream*/) const { return false; }
  // Which stream a caller's `stream` handle names on the calling thread, as a key that tells
  // streams apart: the handle itself, except where one handle names a different stream on each
  // thread (CUDA's cudaStreamPerThread), whose work on two threads runs in no order.
  virtual const void* stream_identity(void* stream) const { return stream; }

  // Memory that can still be allocated now (free device memory; available host memory on the
  // CPU). The tuner keeps its operands within part of it. Defaults to the total.
  virtual std::size_t available_memory_bytes() const { return properties().memory_bytes; }

  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // Uniform random values in [-1, 1] (never zeros), `elements` of `dtype`, reproducible by seed.
  virtual void fill_random(Buffer& buffer, DType dtype, std::int64_t elements,
                           std::uint64_t seed) = 0;
  // Sets every byte; used to poison outputs so that unwritten elements show.
  virtual void fill_bytes(Buffer& buffer, unsigned char value) = 0;
  virtual void copy(Buffer& dst, const Buffer& src, std::size_t bytes) = 0;
  // Copies `elements` of `dtype` to the host and widens them to double, for numerical checks.
  virtual std::vector<double> read_as_double(const Buffer& src, DType dtype,
                                             std::int64_t elements) = 0;

  virtual void synchronize() = 0;
  // Evicts the last-level cache (writes a buffer larger than it); used between iterations when
  // rotating buffers cannot cover twice the cache.
  virtual void flush_cache() = 0;

  // A timer for one phase. `mode` says whether its iterations may be held back and run together
  // (TimingMode::Queued: the samples are device time) or must run as issued; a backend whose
  // timer has only one way (the CPU's steady clock) ignores it.
  virtual std::unique_ptr<IterationTimer> make_timer(TimingMode mode) = 0;

  // Optional: `runs` calls of `issue`, each queueing one run on the stream it is given, captured
  // for replay, and replayed once untimed (a first replay uploads the work). Null where the
  // backend cannot capture (`why` left empty: the CPU) or the capture failed (`why` says why: a
  // run that failed, work that cannot be captured); a lost device throws DeviceError.
  virtual std::unique_ptr<CapturedRuns> capture_runs(
      const std::function<RunStatus(void* stream)>& /*issue*/, int /*runs*/, std::string& why) {
    why.clear();
    return nullptr;
  }

  // Optional: the numerical check where the outputs are. Both take buffers laid out as the
  // problem's C; nullopt means "not on this backend", and the tuner then reads the outputs back
  // and compares them on the host (numerical_check.hpp), with the same rule and result.
  // The root mean square of the finite m×n elements of every batch of `output`.
  virtual std::optional<double> output_rms(const Problem&, const Buffer&) { return std::nullopt; }
  virtual std::optional<CheckResult> compare_outputs(const Problem&, const Buffer& /*reference*/,
                                                     const Buffer& /*candidate*/,
                                                     const Tolerance&) {
    return std::nullopt;
  }
};

}  // namespace gemmtune
