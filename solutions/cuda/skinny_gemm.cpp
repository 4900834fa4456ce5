#include "solutions/cuda/skinny_gemm.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune::cuda {
namespace {

constexpr std::string_view kPrefix = "Gemmtune_Skinny_rows_";
constexpr std::string_view kThreads = "_threads_";

std::optional<SkinnyType> skinny_type(DType dtype) {
  switch (dtype) {
    case DType::BFloat16:
      return SkinnyType::BFloat16;
    case DType::Float16:
      return SkinnyType::Float16;
    case DType::Float32:
      return SkinnyType::Float32;
    default:
      return std::nullopt;
  }
}

bool compiled(SkinnyConfig config) {
  for (const SkinnyConfig& c : kSkinnyConfigs) {
    if (c.rows == config.rows && c.threads == config.threads) return true;
  }
  return false;
}

class SkinnySolution final : public Solution {
 public:
  SkinnySolution(const Problem& problem, SkinnyConfig config)
      : problem_(problem),
        config_(config),
        name_(skinny_solution_name(config)),
        why_not_(skinny_unsupported_reason(problem)) {
    if (!why_not_ && !compiled(config)) {
      why_not_ = fmt::format("{} is not a compiled configuration", name_);
    }
  }

  const std::string& name() const override { return name_; }

  Support supports(const Problem& problem) const override {
    if (why_not_) return Support::no(*why_not_);
    if (!(problem == problem_)) return Support::no(name_ + " was built for another problem");
    return Support::yes();
  }

  RunStatus run(const Problem& problem, const Operands& ops, void* stream_ptr) override {
    if (const Support s = supports(problem); !s) return RunStatus::failure(s.reason);
    const auto stream = static_cast<cudaStream_t>(stream_ptr);
    const ScopedDevice device(device_of(stream));
    const Problem& p = problem_;
    SkinnyArgs args;
    args.a = ops.a;
    args.b = ops.b;
    args.c = ops.c;
    args.lda = p.blas_lda();
    args.ldb = p.blas_ldb();
    args.ldc = p.blas_ldc();
    args.stride_a = p.batch_stride_a();
    args.stride_b = p.batch_stride_b();
    args.stride_c = p.batch_stride_c();
    args.m = static_cast<int>(p.m);
    args.n = static_cast<int>(p.n);
    args.k = static_cast<int>(p.k);
    args.batch = static_cast<int>(p.batch);
    args.alpha = static_cast<float>(ops.alpha);
    args.beta = static_cast<float>(ops.beta);
    const cudaError_t status = launch_skinny_tn(*skinny_type(p.a_type), config_, args, stream);
    if (status != cudaSuccess) return RunStatus::failure(call_failed_message(name_, status));
    return RunStatus::success();
  }

 private:
  Problem problem_;
  SkinnyConfig config_;
  std::string name_;
  std::optional<std::string> why_not_;
};

}  // namespace

std::string skinny_solution_name(SkinnyConfig config) {
  return fmt::format("{}{}{}{}", kPrefix, config.rows, kThreads, config.threads);
}

std::optional<SkinnyConfig> parse_skinny_solution_name(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  SkinnyConfig config;
  const char* end = name.data() + name.size();
  auto [p, ec] = std::from_chars(name.data(), end, config.rows);
  if (ec != std::errc() || std::string_view(p, end - p).substr(0, kThreads.size()) != kThreads) {
    return std::nullopt;
  }
  p += kThreads.size();
  auto [q, ec2] = std::from_chars(p, end, config.threads);
  if (ec2 != std::errc() || q != end) return std::nullopt;
  return config;
}

std::optional<std::string> skinny_unsupported_reason(const Problem& p) {
  if (p.op != OpKind::Gemm && p.op != OpKind::GemmStridedBatched) {
    return std::string("the skinny kernel runs Gemm and GemmStridedBatched only");
  }
  if (p.transa != Transpose::T || p.transb != Transpose::N) {
    return std::string("the skinny kernel runs the tn layout only");
  }
  if (!skinny_type(p.a_type) || p.b_type != p.a_type || p.c_type != p.a_type) {
    return std::string("the skinny kernel runs bf16, fp16 and fp32 only");
  }
  if (p.n > kSkinnyMaxN) return fmt::format("n = {} > {}", p.n, kSkinnyMaxN);
  if (p.batch > kSkinnyMaxBatch) return fmt::format("batch = {} > {}", p.batch, kSkinnyMaxBatch);
  constexpr auto kMaxInt = std::numeric_limits<int>::max();
  if (p.m > kMaxInt || p.k > kMaxInt) return std::string("m or k exceeds 2^31 - 1");
  return std::nullopt;
}

std::vector<std::unique_ptr<Solution>> GemmtuneCudaProvider::enumerate(const Problem& problem,
                                                                       const SearchOptions&) {
  std::vector<std::unique_ptr<Solution>> out;
  if (skinny_unsupported_reason(problem)) return out;
  for (const SkinnyConfig& config : kSkinnyConfigs) {
    out.push_back(std::make_unique<SkinnySolution>(problem, config));
  }
  return out;
}

std::unique_ptr<Solution> GemmtuneCudaProvider::from_name(const Problem& problem,
                                                          std::string_view name) {
  const auto config = parse_skinny_solution_name(name);
  if (!config) return nullptr;
  return std::make_unique<SkinnySolution>(problem, *config);
}

}  // namespace gemmtune::cuda
