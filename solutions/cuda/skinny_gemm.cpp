#include "solutions/cuda/skinny_gemm.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <vector>

#include "solutions/cuda/cuda_check.hpp"
#include "solutions/cuda/cuda_device.hpp"

namespace gemmtune::cuda {
namespace {

// "<prefix><int><field><int><field><int>…": the prefix, then the fields that follow each int
// after the first (constant, so that no order of static initialization can matter).
struct NameForm {
  std::string_view prefix;
  std::array<std::string_view, 3> field_storage;
  std::size_t field_count;
  constexpr std::string_view field(std::size_t i) const { return field_storage[i]; }
};
constexpr NameForm kCudaCoreName{"Gemmtune_Skinny_rows_", {"_threads_"}, 1};
constexpr NameForm kTensorCoreName{"Gemmtune_SkinnyTc_mtiles_", {"_warps_"}, 1};
constexpr NameForm kBulkName{"Gemmtune_SkinnyBulk_mtiles_", {"_warps_", "_kboxes_", "_stages_"}, 3};
constexpr NameForm kWgmmaName{
    "Gemmtune_SkinnyWgmma_mtiles_", {"_groups_", "_kboxes_", "_stages_"}, 3};
// After a TMA kernel's name where it prefetches A late (SkinnyPrefetch::late); the name without
// it is the early prefetch's, as before the choice existed.
constexpr std::string_view kLatePrefetchSuffix = "_prefetch_late";

std::string format_name(const NameForm& form, std::initializer_list<int> values) {
  std::string name(form.prefix);
  std::size_t i = 0;
  for (const int v : values) {
    if (i > 0) name += form.field(i - 1);
    name += std::to_string(v);
    ++i;
  }
  return name;
}

// The name's ints, one more than the form has fields; none when the name is not of the form.
std::optional<std::vector<int>> parse_form(std::string_view name, const NameForm& form) {
  if (!name.starts_with(form.prefix)) return std::nullopt;
  name.remove_prefix(form.prefix.size());
  std::vector<int> values;
  const char* p = name.data();
  const char* end = name.data() + name.size();
  for (std::size_t i = 0;; ++i) {
    int v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) return std::nullopt;
    values.push_back(v);
    p = next;
    if (i == form.field_count) break;
    if (!std::string_view(p, end - p).starts_with(form.field(i))) return std::nullopt;
    p += form.field(i).size();
  }
  if (p != end) return std::nullopt;
  return values;
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

template <typename Config, std::size_t N>
bool listed(const Config& config, const Config (&configs)[N]) {
  for (const Config& k : configs) {
    if (k == config) return true;
  }
  return false;
}

// The lists hold each TMA configuration once, with the early prefetch; both prefetches are
// compiled.
template <typename Config>
Config with_early_prefetch(Config config) {
  config.prefetch = SkinnyPrefetch::early;
  return config;
}

bool compiled(const SkinnyKernelConfig& config) {
  if (const auto* c = std::get_if<SkinnyConfig>(&config)) return listed(*c, kSkinnyConfigs);
  if (const auto* tc = std::get_if<SkinnyTcConfig>(&config)) return listed(*tc, kSkinnyTcConfigs);
  if (const auto* bulk = std::get_if<SkinnyBulkConfig>(&config)) {
    return listed(with_early_prefetch(*bulk), kSkinnyBulkConfigs);
  }
  return listed(with_early_prefetch(std::get<SkinnyWgmmaConfig>(config)), kSkinnyWgmmaConfigs);
}

// Dynamic shared memory the kernel takes at n columns (n within its limit); 0 for the kernels
// without a shared-memory ring.
int dynamic_shared_bytes(const SkinnyKernelConfig& config, int n) {
  if (const auto* bulk = std::get_if<SkinnyBulkConfig>(&config)) {
    return skinny_bulk_shared_bytes(*bulk, n);
  }
  if (const auto* wgmma = std::get_if<SkinnyWgmmaConfig>(&config)) {
    return skinny_wgmma_shared_bytes(*wgmma, skinny_wgmma_b_rows(n));
  }
  return 0;
}

class SkinnySolution final : public Solution {
 public:
  SkinnySolution(const Problem& problem, SkinnyKernelConfig config)
      : problem_(problem),
        config_(config),
        name_(skinny_solution_name(config)),
        why_not_(skinny_unsupported_reason(problem, config)) {
    if (!why_not_) why_not_ = skinny_device_unsupported_reason(config, static_cast<int>(problem.n));
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
    const cudaError_t status = std::visit(
        [&](const auto& config) {
          using Config = std::decay_t<decltype(config)>;
          if constexpr (std::is_same_v<Config, SkinnyConfig>) {
            return launch_skinny_tn(type, config, args, stream);
          } else if constexpr (std::is_same_v<Config, SkinnyTcConfig>) {
            return launch_skinny_tc_tn(type, config, args, stream);
          } else if constexpr (std::is_same_v<Config, SkinnyBulkConfig>) {
            return launch_skinny_bulk_tn(type, config, args, stream);
          } else {
            return launch_skinny_wgmma_tn(type, config, args, stream);
          }
        },
        config_);
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
    return format_name(kCudaCoreName, {c->rows, c->threads});
  }
  if (const auto* tc = std::get_if<SkinnyTcConfig>(&config)) {
    return format_name(kTensorCoreName, {tc->m_tiles, tc->warps});
  }
  const auto late = [](SkinnyPrefetch p) {
    return p == SkinnyPrefetch::late ? kLatePrefetchSuffix : std::string_view();
  };
  if (const auto* b = std::get_if<SkinnyBulkConfig>(&config)) {
    return format_name(kBulkName, {b->m_tiles, b->warps, b->k_boxes, b->stages}) +
           std::string(late(b->prefetch));
  }
  const auto& w = std::get<SkinnyWgmmaConfig>(config);
  return format_name(kWgmmaName, {w.m_tiles, w.groups, w.k_boxes, w.stages}) +
         std::string(late(w.prefetch));
}

std::optional<SkinnyKernelConfig> parse_skinny_solution_name(std::string_view name) {
  if (const auto v = parse_form(name, kCudaCoreName)) return SkinnyConfig{(*v)[0], (*v)[1]};
  if (const auto v = parse_form(name, kTensorCoreName)) return SkinnyTcConfig{(*v)[0], (*v)[1]};
  const bool late = name.ends_with(kLatePrefetchSuffix);
  const SkinnyPrefetch prefetch = late ? SkinnyPrefetch::late : SkinnyPrefetch::early;
  const std::string_view base =
      late ? name.substr(0, name.size() - kLatePrefetchSuffix.size()) : name;
  if (const auto v = parse_form(base, kBulkName)) {
    return SkinnyBulkConfig{(*v)[0], (*v)[1], (*v)[2], (*v)[3], prefetch};
  }
  if (const auto v = parse_form(base, kWgmmaName)) {
    return SkinnyWgmmaConfig{(*v)[0], (*v)[1], (*v)[2], (*v)[3], prefetch};
  }
  return std::nullopt;
}

std::optional<std::string> skinny_unsupported_reason(const Problem& p,
                                                     const SkinnyKernelConfig& config) {
  // First: the sizes below are computed from the configuration's numbers, which a name read from
  // a results file can make as large as it likes.
  if (!compiled(config)) {
    return fmt::format("{} is not a compiled configuration", skinny_solution_name(config));
  }
  const bool tensor_cores = !std::holds_alternative<SkinnyConfig>(config);
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
  const int max_n = std::holds_alternative<SkinnyTcConfig>(config)      ? kSkinnyTcMaxN
                    : std::holds_alternative<SkinnyBulkConfig>(config)  ? kSkinnyBulkMaxN
                    : std::holds_alternative<SkinnyWgmmaConfig>(config) ? kSkinnyWgmmaMaxN
                                                                        : kSkinnyMaxN;
  if (p.n > max_n) return fmt::format("n = {} > {}", p.n, max_n);
  if (const int bytes = dynamic_shared_bytes(config, static_cast<int>(p.n));
      bytes > kSkinnyBulkMaxSharedBytes) {
    return fmt::format("needs {} bytes of shared memory at n = {} (at most {})", bytes, p.n,
                       kSkinnyBulkMaxSharedBytes);
  }
  if (p.batch > kSkinnyMaxBatch) return fmt::format("batch = {} > {}", p.batch, kSkinnyMaxBatch);
  // The kernels count rows and k in 32-bit ints and step past the end by up to a few thousand
  // (a block's stride, a chunk rounded up): 2^30 leaves that headroom.
  constexpr std::int64_t kMaxExtent = std::int64_t{1} << 30;
  if (p.m > kMaxExtent || p.k > kMaxExtent) return std::string("m or k exceeds 2^30");
  return std::nullopt;
}

std::optional<std::string> skinny_device_unsupported_reason(const SkinnyKernelConfig& config,
                                                            int n) {
  const bool bulk = std::holds_alternative<SkinnyBulkConfig>(config);
  const bool wgmma = std::holds_alternative<SkinnyWgmmaConfig>(config);
  if (!bulk && !wgmma) return std::nullopt;
  const char* kernel = bulk ? "bulk-copy" : "warpgroup";
  int device = 0, major = 0, minor = 0, shared_per_block = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&shared_per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
          cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it
    return fmt::format("the {} skinny kernel needs a CUDA device, and none is usable", kernel);
  }
  if (bulk && major < 9) {
    return fmt::format(
        "the bulk-copy skinny kernel needs compute capability 9.0 or later (device {} has {}.{})",
        device, major, minor);
  }
  // Its code is sm_90a, which no other compute capability runs.
  if (wgmma && (major != 9 || minor != 0)) {
    return fmt::format(
        "the warpgroup skinny kernel needs compute capability 9.0 (device {} has {}.{})", device,
        major, minor);
  }
  // Hopper gives a block 227 KiB; later devices may give less (99 KiB on compute capability 12),
  // where the ring would fail to launch.
  if (const int bytes = dynamic_shared_bytes(config, n); bytes > shared_per_block) {
    return fmt::format(
        "the {} skinny kernel needs {} bytes of shared memory at n = {} (device {} gives a block "
        "at most {})",
        kernel, bytes, n, device, shared_per_block);
  }
  return std::nullopt;
}

std::vector<std::unique_ptr<Solution>> GemmtuneCudaProvider::enumerate(const Problem& problem,
                                                                       const SearchOptions&) {
  std::vector<std::unique_ptr<Solution>> out;
  // The solution works out whether it fits (problem, compiled configuration, device) once.
  auto offer = [&](const SkinnyKernelConfig& config) {
    auto solution = std::make_unique<SkinnySolution>(problem, config);
    if (solution->supports(problem)) out.push_back(std::move(solution));
  };
  for (const SkinnyConfig& config : kSkinnyConfigs) offer(config);
  for (const SkinnyTcConfig& config : kSkinnyTcConfigs) offer(config);
  for (const SkinnyPrefetch prefetch : {SkinnyPrefetch::early, SkinnyPrefetch::late}) {
    for (SkinnyBulkConfig config : kSkinnyBulkConfigs) {
      config.prefetch = prefetch;
      offer(config);
    }
    for (SkinnyWgmmaConfig config : kSkinnyWgmmaConfigs) {
      config.prefetch = prefetch;
      offer(config);
    }
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
