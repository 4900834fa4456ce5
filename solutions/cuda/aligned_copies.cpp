#include "solutions/cuda/aligned_copies.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/pointer_alignment.hpp"

namespace gemmtune::cuda {
namespace {

// What cuBLASLt's algorithms ask of any operand at most; cudaMallocAsync gives 256.
constexpr std::uint32_t kWanted = 16;
constexpr std::size_t kSlot = 256;

std::size_t round_up(std::size_t bytes) {
  return (bytes + kSlot - 1) / kSlot * kSlot;
}

// One operand to copy: `rows` bytes in each of `columns` columns, `pitch` bytes apart.
struct Plan {
  const void* source;
  std::size_t rows, columns, pitch;
  std::size_t offset = 0;  // in the scratch buffer
};

class AlignedCopies final : public Solution {
 public:
  AlignedCopies(const Problem& problem, std::unique_ptr<Solution> solution,
                std::unique_ptr<Solution> last_resort)
      : problem_(problem), solution_(std::move(solution)), last_resort_(std::move(last_resort)) {}

  const std::string& name() const override { return name_; }

  Support supports(const Problem& problem) const override {
    if (Support s = solution_->supports(problem); s) return s;
    return last_resort_->supports(problem);
  }

  std::size_t workspace_bytes(const Problem& problem) const override {
    return solution_->workspace_bytes(problem);
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream) override {
    if (!(problem == problem_)) return RunStatus::failure("built for another problem");
    std::string why;
    if (solution_->supports(problem)) {
      RunStatus status = on_copies(ops, static_cast<cudaStream_t>(stream));
      if (status.ok || !status.refused) return status;
      why = std::move(status.error);
    }
    RunStatus status = last_resort_->run(problem, ops, stream);
    if (!status && !why.empty()) status.error = fmt::format("{}; then {}", why, status.error);
    return status;
  }

 private:
  // Runs solution_ with every operand not on kWanted bytes copied to one scratch buffer. A
  // refusal (no memory, or the solution turns the copies down too) leaves C untouched.
  RunStatus on_copies(const Operands& ops, cudaStream_t stream) {
    const Problem& p = problem_;
    const std::size_t c_element = info(p.c_type).bytes;
    const std::size_t scales_a = p.rowwise ? static_cast<std::size_t>(p.m) : 1;
    const std::size_t scales_b = p.rowwise ? static_cast<std::size_t>(p.n) : 1;
    Operands copies = ops;
    std::vector<Plan> in;  // copied to the scratch buffer before the call
    std::size_t total = 0;
    const auto place = [&](const void* pointer, std::size_t rows, std::size_t columns,
                           std::size_t pitch) -> std::size_t {
      in.push_back({pointer, rows, columns, pitch, total});
      total += round_up(pitch * (columns - 1) + rows);
      return in.back().offset;
    };
    // Offsets now, pointers once the buffer is there.
    std::vector<std::pair<const void**, std::size_t>> pointers;
    const auto want = [&](const void*& pointer, std::size_t rows, std::size_t columns,
                          std::size_t pitch) {
      if (pointer == nullptr || alignment_of(pointer) >= kWanted) return;
      pointers.emplace_back(&pointer, place(pointer, rows, columns, pitch));
    };
    const std::size_t a_element = info(p.a_type).bytes, b_element = info(p.b_type).bytes;
    want(copies.a, p.a_rows() * a_element, p.a_cols(), p.blas_lda() * a_element);
    want(copies.b, p.b_rows() * b_element, p.b_cols(), p.blas_ldb() * b_element);
    const void* scale_a = copies.scale_a;
    const void* scale_b = copies.scale_b;
    want(scale_a, scales_a * sizeof(float), 1, scales_a * sizeof(float));
    want(scale_b, scales_b * sizeof(float), 1, scales_b * sizeof(float));
    if (p.bias_type) {
      const std::size_t bias = static_cast<std::size_t>(p.m) * info(*p.bias_type).bytes;
      want(copies.bias, bias, 1, bias);
    }
    // C: copied in only where beta reads it, always copied back.
    const bool c_moves = ops.c != nullptr && alignment_of(ops.c) < kWanted;
    const std::size_t c_rows = static_cast<std::size_t>(p.m) * c_element;
    const std::size_t c_pitch = static_cast<std::size_t>(p.blas_ldc()) * c_element;
    const auto n = static_cast<std::size_t>(p.n);
    std::size_t c_offset = 0;
    if (c_moves) {
      c_offset = total;
      total += round_up(c_pitch * (n - 1) + c_rows);
      if (ops.beta != 0.0) in.push_back({ops.c, c_rows, n, c_pitch, c_offset});
    }
    if (total == 0) return RunStatus::refusal("every operand is on 16 bytes already");
    if (info(p.c_type).is_float8 && ops.beta != 0.0) {
      return RunStatus::failure("a ScaledGemm with fp8 output takes beta = 0 only");
    }

    const ScopedDevice device(device_of(stream));
    const cudaError_t pending = cudaPeekAtLastError();
    // An error of ours that leaves the device usable: cleared (where the caller left none
    // pending) and a refusal, so that the last resort runs the call, C being untouched so far.
    // A sticky one, or one of a stream capture, ends the call.
    const auto refuse_or_fail = [&](const char* what, cudaError_t e) {
      if (pending == cudaSuccess) cudaGetLastError();
      const bool recoverable = e == cudaErrorMemoryAllocation || e == cudaErrorNotSupported ||
                               e == cudaErrorInvalidPitchValue || e == cudaErrorInvalidValue;
      std::string message = call_failed_message(what, e);
      return recoverable && !is_sticky(e) ? RunStatus::refusal(std::move(message))
                                          : RunStatus::failure(std::move(message));
    };
    void* scratch = nullptr;
    if (const cudaError_t e = cudaMallocAsync(&scratch, total, stream); e != cudaSuccess) {
      return refuse_or_fail("cudaMallocAsync of the aligned copies", e);
    }
    // Freed however the call ends (solution_->run may throw).
    struct Scratch {
      void* pointer;
      cudaStream_t stream;
      ~Scratch() { cudaFreeAsync(pointer, stream); }
    } const owned{scratch, stream};
    char* base = static_cast<char*>(scratch);
    for (const Plan& plan : in) {
      // One span where the columns follow each other, column by column where they do not.
      const cudaError_t e =
          plan.pitch == plan.rows
              ? cudaMemcpyAsync(base + plan.offset, plan.source, plan.rows * plan.columns,
                                cudaMemcpyDeviceToDevice, stream)
              : cudaMemcpy2DAsync(base + plan.offset, plan.pitch, plan.source, plan.pitch,
                                  plan.rows, plan.columns, cudaMemcpyDeviceToDevice, stream);
      if (e != cudaSuccess) return refuse_or_fail("copying an operand to aligned memory", e);
    }
    for (const auto& [pointer, offset] : pointers) *pointer = base + offset;
    copies.scale_a = static_cast<const float*>(scale_a);
    copies.scale_b = static_cast<const float*>(scale_b);
    if (c_moves) copies.c = base + c_offset;
    RunStatus status = solution_->run(problem_, copies, stream);
    if (status.ok && c_moves) {
      const cudaError_t e = cudaMemcpy2DAsync(ops.c, c_pitch, base + c_offset, c_pitch, c_rows, n,
                                              cudaMemcpyDeviceToDevice, stream);
      if (e != cudaSuccess) {
        if (pending == cudaSuccess) cudaGetLastError();
        status = RunStatus::failure(call_failed_message("copying C back from aligned memory", e));
      }
    }
    return status;
  }

  const std::string name_ = "cuBLASLt on aligned copies";
  Problem problem_;
  std::unique_ptr<Solution> solution_;
  std::unique_ptr<Solution> last_resort_;
};

}  // namespace

std::unique_ptr<Solution> make_aligned_copies(const Problem& problem,
                                              std::unique_ptr<Solution> solution,
                                              std::unique_ptr<Solution> last_resort) {
  return std::make_unique<AlignedCopies>(problem, std::move(solution), std::move(last_resort));
}

}  // namespace gemmtune::cuda
