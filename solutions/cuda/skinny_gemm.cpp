#include "solutions/cuda/skinny_gemm.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune::cuda {
namespace {

struct NameForm {
  std::string_view prefix, middle;
};
constexpr NameForm kCudaCoreName{"Gemmtune_Skinny_rows_", "_threads_"};
constexpr NameForm kTensorCoreName{"Gemmtune_SkinnyTc_mtiles_", "_warps_"};

// "<prefix><int><middle><int>" → the two ints.
std::optional<std::pair<int, int>> parse_form(std::string_view name, NameForm form) {
  if (!name.starts_with(form.prefix)) return std::nullopt;
  name.remove_prefix(form.prefix.size());
  const char* end = name.data() + name.size();
  int first = 0, second = 0;
  auto [p, ec] = std::from_chars(name.data(), end, first);
  if (ec != std::errc() || !std::string_view(p, end - p).starts_with(form.middle)) {
    return std::nullopt;
  }
  p += form.middle.size();
  auto [q, ec2] = std::from_chars(p, end, second);
  if (ec2 != std::errc() || q != end) return std::nullopt;
  return std::pair{first, second};
}

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

bool compiled(const SkinnyKernelConfig& config) {
  if (const auto* c = std::get_if<SkinnyConfig>(&config)) {
    for (const SkinnyConfig& k : kSkinnyConfigs) {
      if (k.rows == c->rows && k.threads == c->threads) return true;
    }
    return false;
  }
  const auto& tc = std::get<SkinnyTcConfig>(config);
  for (const SkinnyTcConfig& k : kSkinnyTcConfigs) {
    if (k.m_tiles == tc.m_tiles && k.warps == tc.warps) return true;
  }
  return false;
}

class SkinnySolution final : public Solution {
 public:
  SkinnySolution(const Problem& problem, SkinnyKernelConfig config)
      : problem_(problem),
        config_(config),
        name_(skinny_solution_name(config)),
        why_not_(skinny_unsupported_reason(problem, config)) {
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
    const SkinnyType type = *skinny_type(p.a_type);
    const cudaError_t status =
        std::holds_alternative<SkinnyConfig>(config_)
            ? launch_skinny_tn(type, std::get<SkinnyConfig>(config_), args, stream)
            : launch_skinny_tc_tn(type, std::get<SkinnyTcConfig>(config_), args, stream);
    if (status != cudaSuccess) return RunStatus::failure(call_failed_message(name_, status));
    return RunStatus::success();
  }

 private:
  Problem problem_;
  SkinnyKernelConfig config_;
  std::string name_;
  std::optional<std::string> why_not_;
};

}  // namespace

std::string skinny_solution_name(const SkinnyKernelConfig& config) {
  if (const auto* c = std::get_if<SkinnyConfig>(&config)) {
    return fmt::format("{}{}{}{}", kCudaCoreName.prefix, c->rows, kCudaCoreName.middle, c->threads);
  }
  const auto& tc = std::get<SkinnyTcConfig>(config);
  return fmt::format("{}{}{}{}", kTensorCoreName.prefix, tc.m_tiles, kTensorCoreName.middle,
                     tc.warps);
}

std::optional<SkinnyKernelConfig> parse_skinny_solution_name(std::string_view name) {
  if (const auto v = parse_form(name, kCudaCoreName)) return SkinnyConfig{v->first, v->second};
  if (const auto v = parse_form(name, kTensorCoreName)) return SkinnyTcConfig{v->first, v->second};
  return std::nullopt;
}

std::optional<std::string> skinny_unsupported_reason(const Problem& p,
                                                     const SkinnyKernelConfig& config) {
  const bool tensor_cores = std::holds_alternative<SkinnyTcConfig>(config);
  if (p.op != OpKind::Gemm && p.op != OpKind::GemmStridedBatched) {
    return std::string("the skinny kernels run Gemm and GemmStridedBatched only");
  }
  if (p.transa != Transpose::T || p.transb != Transpose::N) {
    return std::string("the skinny kernels run the tn layout only");
  }
  const auto type = skinny_type(p.a_type);
  if (!type || p.b_type != p.a_type || p.c_type != p.a_type ||
      (tensor_cores && *type == SkinnyType::Float32)) {
    return std::string(tensor_cores ? "the tensor-core skinny kernel runs bf16 and fp16 only"
                                    : "the skinny kernel runs bf16, fp16 and fp32 only");
  }
  const int max_n = tensor_cores ? kSkinnyTcMaxN : kSkinnyMaxN;
  if (p.n > max_n) return fmt::format("n = {} > {}", p.n, max_n);
  if (p.batch > kSkinnyMaxBatch) return fmt::format("batch = {} > {}", p.batch, kSkinnyMaxBatch);
  constexpr auto kMaxInt = std::numeric_limits<int>::max();
  if (p.m > kMaxInt || p.k > kMaxInt) return std::string("m or k exceeds 2^31 - 1");
  return std::nullopt;
}

std::vector<std::unique_ptr<Solution>> GemmtuneCudaProvider::enumerate(const Problem& problem,
                                                                       const SearchOptions&) {
  std::vector<std::unique_ptr<Solution>> out;
  auto offer = [&](const SkinnyKernelConfig& config) {
    if (!skinny_unsupported_reason(problem, config)) {
      out.push_back(std::make_unique<SkinnySolution>(problem, config));
    }
  };
  for (const SkinnyConfig& config : kSkinnyConfigs) offer(config);
  for (const SkinnyTcConfig& config : kSkinnyTcConfigs) offer(config);
  return out;
}

std::unique_ptr<Solution> GemmtuneCudaProvider::from_name(const Problem& problem,
                                                          std::string_view name) {
  const auto config = parse_skinny_solution_name(name);
  if (!config) return nullptr;
  return std::make_unique<SkinnySolution>(problem, *config);
}

}  // namespace gemmtune::cuda
