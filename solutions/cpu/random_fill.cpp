#include "solutions/cpu/random_fill.hpp"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "solutions/cpu/elements.hpp"

namespace gemmtune::cpu {
namespace {

// splitmix64: fast, good enough for test data, and reproducible from its state alone.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-52 - 1.0; }
};

// The generator of one block: its starting state drawn from (seed, block) by a splitmix step, so
// that neighbouring blocks' streams are unrelated.
SplitMix64 block_generator(std::uint64_t seed, std::int64_t block) {
  SplitMix64 mix{seed ^ (static_cast<std::uint64_t>(block) * 0xD1B54A32D192ED03ull)};
  return SplitMix64{mix.next()};
}

// A 16-bit type through its fast conversion from float, redrawing the values that round to zero
// (either sign).
void fill_16_bits(void* base, std::int64_t begin, std::int64_t end, SplitMix64& rng,
                  std::uint16_t (*convert)(float)) {
  auto* p = static_cast<std::uint16_t*>(base);
  for (std::int64_t i = begin; i < end; ++i) {
    std::uint16_t bits = 0;
    while ((bits & 0x7FFFu) == 0) bits = convert(static_cast<float>(rng.uniform()));
    p[i] = bits;
  }
}

// Elements [begin, end) from `rng`; a value that rounds to zero in the storage type is drawn
// again.
void fill_block(void* base, DType dtype, std::int64_t begin, std::int64_t end, SplitMix64 rng) {
  switch (dtype) {
    case DType::Float32:
    case DType::TF32: {
      auto* p = static_cast<float*>(base);
      for (std::int64_t i = begin; i < end; ++i) {
        float v = 0;
        while (v == 0) v = static_cast<float>(rng.uniform());
        p[i] = v;
      }
      return;
    }
    case DType::Float64: {
      auto* p = static_cast<double*>(base);
      for (std::int64_t i = begin; i < end; ++i) {
        double v = 0;
        while (v == 0) v = rng.uniform();
        p[i] = v;
      }
      return;
    }
    case DType::BFloat16:
      fill_16_bits(base, begin, end, rng, float_to_bf16);
      return;
    case DType::Float16:
      fill_16_bits(base, begin, end, rng, float_to_fp16);
      return;
    default:
      // fp8: the generic encoder, redrawing values below half the smallest subnormal.
      for (std::int64_t i = begin; i < end; ++i) {
        do {
          store_real(dtype, base, i, rng.uniform());
        } while (load_real(dtype, base, i) == 0);
      }
  }
}

}  // namespace

void fill_random(void* data, DType dtype, std::int64_t elements, std::uint64_t seed, int threads) {
  // Complex values are their real and imaginary parts, filled as twice as many reals.
  DType real = dtype;
  if (dtype == DType::ComplexFloat32) real = DType::Float32;
  if (dtype == DType::ComplexFloat64) real = DType::Float64;
  const std::int64_t values = real == dtype ? elements : 2 * elements;
  const std::int64_t blocks = (values + kRandomFillBlock - 1) / kRandomFillBlock;
  std::atomic<std::int64_t> next{0};
  const auto work = [&] {
    for (std::int64_t b = next++; b < blocks; b = next++) {
      const std::int64_t begin = b * kRandomFillBlock;
      fill_block(data, real, begin, std::min(values, begin + kRandomFillBlock),
                 block_generator(seed, b));
    }
  };
  std::vector<std::jthread> helpers;
  for (std::int64_t t = 1; t < std::min<std::int64_t>(threads, blocks); ++t) {
    helpers.emplace_back(work);
  }
  work();
}

}  // namespace gemmtune::cpu
