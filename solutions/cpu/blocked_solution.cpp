#include "solutions/cpu/blocked_solution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <type_traits>

#include "solutions/cpu/float_conversion.hpp"

namespace gemmtune::cpu {
namespace {

// Micro-tile: MR rows × NR columns of C held in registers as MR × 2 vectors of 32 bytes (twelve
// AVX registers, leaving room for B and the broadcast of A, as in the classic 6×16 Haswell kernel).
template <class Acc>
struct MicroTile {
  static constexpr int mr = 6;
  static constexpr int nr = 2 * 32 / static_cast<int>(sizeof(Acc));
};

// GCC vector types spell the vectorization out: left to itself, the auto-vectorizer shuffles the
// accumulator tile across the wrong dimension and runs 10× slower.
typedef float Vf32 __attribute__((vector_size(32)));
typedef double Vf64 __attribute__((vector_size(32)));

template <class V, class S>
[[gnu::always_inline]] inline void micro_kernel_body(int kc, const S* a, const S* b, S* c,
                                                     int ldc) {
  constexpr int MR = MicroTile<S>::mr, NR = MicroTile<S>::nr;
  constexpr int W = static_cast<int>(sizeof(V) / sizeof(S));
  constexpr int NV = NR / W;
  V acc[MR][NV] = {};
  for (int p = 0; p < kc; ++p) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) __builtin_memcpy(&bv[v], b + p * NR + v * W, sizeof(V));
    for (int i = 0; i < MR; ++i) {
      const V ai = V{} + a[p * MR + i];  // broadcast
      for (int v = 0; v < NV; ++v) acc[i][v] += ai * bv[v];
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) {
      V cv;
      __builtin_memcpy(&cv, c + i * ldc + v * W, sizeof(V));
      cv += acc[i][v];
      __builtin_memcpy(c + i * ldc + v * W, &cv, sizeof(V));
    }
  }
}

// Compiled for AVX2/FMA and for the baseline; the loader picks one at run time, so that the
// binary still runs on any x86-64 while using the vectors this machine has. Not under
// ThreadSanitizer: the loader runs the picker (an instrumented ifunc resolver) before TSan's
// runtime is up, and every binary crashed at start (scripts/sanitize.sh thread).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define GEMMTUNE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GEMMTUNE_CLONES
#endif

GEMMTUNE_CLONES
void micro_kernel_f32(int kc, const float* a, const float* b, float* c, int ldc) {
  micro_kernel_body<Vf32>(kc, a, b, c, ldc);
}

GEMMTUNE_CLONES
void micro_kernel_f64(int kc, const double* a, const double* b, double* c, int ldc) {
  micro_kernel_body<Vf64>(kc, a, b, c, ldc);
}

inline void micro_kernel(int kc, const float* a, const float* b, float* c, int ldc) {
  micro_kernel_f32(kc, a, b, c, ldc);
}
inline void micro_kernel(int kc, const double* a, const double* b, double* c, int ldc) {
  micro_kernel_f64(kc, a, b, c, ldc);
}

// Storage element → accumulation type, and back.
enum class Storage { F32, F64, F16, BF16 };

template <Storage S>
struct StorageTraits;
template <>
struct StorageTraits<Storage::F32> {
  using Elem = float;
  using Acc = float;
  static float load(Elem v) { return v; }
  static Elem store(float v) { return v; }
};
template <>
struct StorageTraits<Storage::F64> {
  using Elem = double;
  using Acc = double;
  static double load(Elem v) { return v; }
  static Elem store(double v) { return v; }
};
template <>
struct StorageTraits<Storage::F16> {
  using Elem = std::uint16_t;
  using Acc = float;
  static float load(Elem v) { return fp16_to_float(v); }
  static Elem store(float v) { return float_to_fp16(v); }
};
template <>
struct StorageTraits<Storage::BF16> {
  using Elem = std::uint16_t;
  using Acc = float;
  static float load(Elem v) { return bf16_to_float(v); }
  static Elem store(float v) { return float_to_bf16(v); }
};

struct Scratch {
  std::vector<float> f32;
  std::vector<double> f64;
  template <class Acc>
  Acc* get(std::size_t elements) {
    if constexpr (std::is_same_v<Acc, float>) {
      if (f32.size() < elements) f32.resize(elements);
      return f32.data();
    } else {
      if (f64.size() < elements) f64.resize(elements);
      return f64.data();
    }
  }
};

template <Storage S>
void blocked_gemm(const Problem& p, const Operands& o, const BlockedTile& tile, Scratch& scratch) {
  using T = StorageTraits<S>;
  using Elem = typename T::Elem;
  using Acc = typename T::Acc;
  constexpr int MR = MicroTile<Acc>::mr, NR = MicroTile<Acc>::nr;
  const std::int64_t mc_pad = (tile.mc + MR - 1) / MR * MR;
  const std::int64_t nc_pad = (tile.nc + NR - 1) / NR * NR;
  Acc* a_pack = scratch.get<Acc>(
      static_cast<std::size_t>(mc_pad * tile.kc + nc_pad * tile.kc + mc_pad * nc_pad));
  Acc* b_pack = a_pack + mc_pad * tile.kc;
  Acc* c_tile = b_pack + nc_pad * tile.kc;

  const auto* A = static_cast<const Elem*>(o.a);
  const auto* B = static_cast<const Elem*>(o.b);
  auto* C = static_cast<Elem*>(o.c);
  const auto* bias = static_cast<const Elem*>(o.bias);
  const auto alpha = static_cast<Acc>(o.alpha);
  const auto beta = static_cast<Acc>(o.beta);
  const bool a_n = p.transa == Transpose::N, b_n = p.transb == Transpose::N;

  for (std::int64_t batch = 0; batch < p.batch; ++batch) {
    const Elem* Ab = A + batch * p.batch_stride_a();
    const Elem* Bb = B + batch * p.batch_stride_b();
    Elem* Cb = C + batch * p.batch_stride_c();
    for (std::int64_t jc = 0; jc < p.n; jc += tile.nc) {
      const std::int64_t nb = std::min<std::int64_t>(tile.nc, p.n - jc);
      const std::int64_t nb_pad = (nb + NR - 1) / NR * NR;
      for (std::int64_t ic = 0; ic < p.m; ic += tile.mc) {
        const std::int64_t mb = std::min<std::int64_t>(tile.mc, p.m - ic);
        const std::int64_t mb_pad = (mb + MR - 1) / MR * MR;
        std::fill(c_tile, c_tile + mb_pad * nc_pad, Acc{0});
        for (std::int64_t pc = 0; pc < p.k; pc += tile.kc) {
          const std::int64_t kb = std::min<std::int64_t>(tile.kc, p.k - pc);
          // A block → micro-panels of MR rows, k-major; rows past m padded with zeros.
          for (std::int64_t ir = 0; ir < mb_pad; ir += MR) {
            Acc* panel = a_pack + ir * kb;
            for (std::int64_t l = 0; l < kb; ++l) {
              for (int r = 0; r < MR; ++r) {
                const std::int64_t i = ic + ir + r, kk = pc + l;
                panel[l * MR + r] =
                    ir + r < mb ? T::load(Ab[a_n ? i + kk * p.lda : kk + i * p.lda]) : Acc{0};
              }
            }
          }
          // B panel → micro-panels of NR columns, k-major; columns past n padded with zeros.
          for (std::int64_t jr = 0; jr < nb_pad; jr += NR) {
            Acc* panel = b_pack + jr * kb;
            for (std::int64_t l = 0; l < kb; ++l) {
              for (int c = 0; c < NR; ++c) {
                const std::int64_t j = jc + jr + c, kk = pc + l;
                panel[l * NR + c] =
                    jr + c < nb ? T::load(Bb[b_n ? kk + j * p.ldb : j + kk * p.ldb]) : Acc{0};
              }
            }
          }
          for (std::int64_t jr = 0; jr < nb_pad; jr += NR) {
            for (std::int64_t ir = 0; ir < mb_pad; ir += MR) {
              micro_kernel(static_cast<int>(kb), a_pack + ir * kb, b_pack + jr * kb,
                           c_tile + ir * nc_pad + jr, static_cast<int>(nc_pad));
            }
          }
        }
        for (std::int64_t j = 0; j < nb; ++j) {
          Elem* column = Cb + (jc + j) * p.ldc + ic;
          for (std::int64_t i = 0; i < mb; ++i) {
            // alpha = 0 reads no product, as in BLAS: a NaN or Inf in A or B does not reach C.
            Acc v = alpha == Acc{0} ? Acc{0} : alpha * c_tile[i * nc_pad + j];
            if (beta != Acc{0}) v += beta * T::load(column[i]);
            if (bias) v += T::load(bias[ic + i]);
            column[i] = T::store(v);
          }
        }
      }
    }
  }
}

class BlockedSolution final : public Solution {
 public:
  explicit BlockedSolution(BlockedTile tile) : tile_(tile), name_(blocked_solution_name(tile)) {}

  const std::string& name() const override { return name_; }

  Support supports(const Problem& p) const override {
    if (auto why = p.invalid_reason()) return Support::no(*why);
    if (p.op == OpKind::ScaledGemm)
      return Support::no("fp8 ScaledGemm is left to Default on the CPU");
    switch (p.a_type) {
      case DType::Float32:
      case DType::TF32:
      case DType::Float64:
      case DType::Float16:
      case DType::BFloat16:
        return Support::yes();
      default:
        return Support::no(fmt::format("no blocked kernel for {}", info(p.a_type).cli_name));
    }
  }

  RunStatus run(const Problem& p, const Operands& o, void*) override {
    if (p.has_bias() && !o.bias) return RunStatus::failure("GemmAndBias without a bias pointer");
    Scratch& scratch = thread_scratch();
    switch (p.a_type) {
      case DType::Float32:
      case DType::TF32:
        blocked_gemm<Storage::F32>(p, o, tile_, scratch);
        break;
      case DType::Float64:
        blocked_gemm<Storage::F64>(p, o, tile_, scratch);
        break;
      case DType::Float16:
        blocked_gemm<Storage::F16>(p, o, tile_, scratch);
        break;
      case DType::BFloat16:
        blocked_gemm<Storage::BF16>(p, o, tile_, scratch);
        break;
      default:
        return RunStatus::failure("unsupported dtype");
    }
    return RunStatus::success();
  }

 private:
  // Packed panels and the C tile, one set per thread: a Context runs one solution object for a
  // problem from every thread that meets it, so a buffer of the object's own would be shared by
  // concurrent runs (it was, and two threads got wrong results). Sized on a thread's first run,
  // reused after.
  static Scratch& thread_scratch() {
    thread_local Scratch scratch;
    return scratch;
  }

  BlockedTile tile_;
  std::string name_;
};

bool parse_int(std::string_view& rest, std::string_view key, int& out) {
  if (rest.substr(0, key.size()) != key) return false;
  rest.remove_prefix(key.size());
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), out);
  if (ec != std::errc{}) return false;
  rest.remove_prefix(static_cast<std::size_t>(ptr - rest.data()));
  return true;
}

}  // namespace

std::vector<BlockedTile> blocked_tiles() {
  // mc×kc of A fits L2 and kc×NR of B fits L1 on current cores; a small and a large one for
  // skinny problems and for big ones.
  return {{32, 128, 128}, {64, 256, 256}, {128, 256, 512}, {64, 512, 1024}};
}

std::string blocked_solution_name(const BlockedTile& t) {
  return fmt::format("Cpu_Blocked_mc_{}_kc_{}_nc_{}", t.mc, t.kc, t.nc);
}

std::optional<BlockedTile> parse_blocked_solution_name(std::string_view name) {
  BlockedTile t;
  std::string_view rest = name;
  if (!parse_int(rest, "Cpu_Blocked_mc_", t.mc) || !parse_int(rest, "_kc_", t.kc) ||
      !parse_int(rest, "_nc_", t.nc) || !rest.empty()) {
    return std::nullopt;
  }
  // Any positive tile up to 4096 rebuilds; beyond that the scratch would be absurd.
  for (int v : {t.mc, t.kc, t.nc}) {
    if (v < 1 || v > 4096) return std::nullopt;
  }
  return t;
}

std::unique_ptr<Solution> make_blocked_solution(const BlockedTile& tile) {
  return std::make_unique<BlockedSolution>(tile);
}

}  // namespace gemmtune::cpu
