// gemmtune's own skinny kernels (CUDA cores, tensor cores, tensor cores fed by the TMA unit, and
// multiplied by wgmma) agree with a double-precision host reference in every compiled
// configuration that fits: each dtype, n from 1 to 64, padded leading dimensions, alpha and beta,
// a strided batch, shapes that force the element-load path (k or ld not a multiple of the
// vector), tiles of C stored through shared memory, k that ends inside a tensor-core chunk, a long
// k, and many tiles per block. Names round-trip; problems they do not fit get no candidates.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "device_test.hpp"
#include "gpu_support.hpp"
#include "solutions/cuda/cuda_device.hpp"
#include "solutions/cuda/skinny_gemm.hpp"

namespace gemmtune {
namespace {

using gpu_test::DeviceOperands;

class SkinnyKernel : public gpu_test::DeviceTest {
 protected:
  void check_every_config(const Problem& p, double alpha, double beta) {
    SCOPED_TRACE(
        fmt::format("{},{} alpha={} beta={}", p.op_signature(), p.params_signature(), alpha, beta));
    DeviceOperands ops(*backend_, p, alpha, beta);
    auto solutions = provider_.enumerate(p, SearchOptions{});
    std::size_t expected = 0;
    if (p.n <= cuda::kSkinnyMaxN) expected += std::size(cuda::kSkinnyConfigs);
    if (p.a_type != DType::Float32) {
      expected += std::size(cuda::kSkinnyTcConfigs);
      // The bulk-copy kernel on the H100/H200 these tests run on: the rings that fit at this n,
      // each with the early and the late prefetch of A.
      for (const cuda::SkinnyBulkConfig& c : cuda::kSkinnyBulkConfigs) {
        if (cuda::skinny_bulk_shared_bytes(c, static_cast<int>(p.n)) <=
            cuda::kSkinnyBulkMaxSharedBytes) {
          expected += 2;
        }
      }
      // The warpgroup kernel (compute capability 9.0, as these machines have): the same.
      for (const cuda::SkinnyWgmmaConfig& c : cuda::kSkinnyWgmmaConfigs) {
        if (cuda::skinny_wgmma_shared_bytes(c, cuda::skinny_wgmma_b_rows(static_cast<int>(p.n))) <=
            cuda::kSkinnyBulkMaxSharedBytes) {
          expected += 2;
        }
      }
    }
    ASSERT_EQ(solutions.size(), expected);
    for (auto& s : solutions) {
      ASSERT_TRUE(s->supports(p)) << s->name() << ": " << s->supports(p).reason;
      EXPECT_EQ(gpu_test::run_and_check(*s, ops), "") << s->name();
    }
  }

  // A bf16 buffer of `elements` ones.
  std::unique_ptr<Buffer> ones(std::size_t elements) {
    auto buffer = backend_->allocate(elements * 2);
    const std::vector<std::uint16_t> host(elements, 0x3f80);
    EXPECT_EQ(cudaMemcpy(buffer->data(), host.data(), elements * 2, cudaMemcpyHostToDevice),
              cudaSuccess);
    return buffer;
  }

  // Runs `first` then `second` on the stream ten times, with C1 and C2 poisoned with NaN before
  // each chain, and expects every element of C2 to be `expected`.
  void expect_chained(Solution& s1, const Problem& first, const Operands& o1, Solution& s2,
                      const Problem& second, const Operands& o2, Buffer& c1, Buffer& c2,
                      std::uint16_t expected) {
    const auto stream = static_cast<cudaStream_t>(backend_->stream());
    for (int chain = 0; chain < 10; ++chain) {
      ASSERT_EQ(cudaMemsetAsync(c1.data(), 0xff, c1.bytes(), stream), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(c2.data(), 0xff, c2.bytes(), stream), cudaSuccess);
      ASSERT_TRUE(s1.run(first, o1, stream)) << s1.name();
      ASSERT_TRUE(s2.run(second, o2, stream)) << s2.name();
      backend_->synchronize();
      std::vector<std::uint16_t> out(c2.bytes() / 2);
      ASSERT_EQ(cudaMemcpy(out.data(), c2.data(), out.size() * 2, cudaMemcpyDeviceToHost),
                cudaSuccess);
      for (const std::uint16_t v : out) {
        ASSERT_EQ(v, expected) << s1.name() << " then " << s2.name() << ", chain " << chain;
      }
    }
  }

  cuda::GemmtuneCudaProvider provider_;
};

TEST_F(SkinnyKernel, AgreesForEveryDtypeAndWidth) {
  for (DType d : {DType::BFloat16, DType::Float16, DType::Float32}) {
    for (std::int64_t n : {1, 2, 3, 5, 8, 11, 16, 24, 32, 40, 64}) {
      if (d == DType::Float32 && n > cuda::kSkinnyMaxN) continue;
      Problem p = Problem::make(OpKind::Gemm, d, Transpose::T, Transpose::N, 300, n, 4096);
      p.lda = p.k + 64;
      p.ldb = p.k + 32;
      p.ldc = p.m + 4;
      check_every_config(p, 1.0, 0.0);
    }
  }
}

TEST_F(SkinnyKernel, AlphaBetaAndBatches) {
  Problem p = Problem::make(OpKind::GemmStridedBatched, DType::BFloat16, Transpose::T, Transpose::N,
                            129, 4, 1024);
  p.batch = 3;
  p.stride_c = p.ldc * p.n + 16;
  check_every_config(p, 0.5, 0.75);
}

TEST_F(SkinnyKernel, ManyTilesPerBlock) {
  // Enough rows that every persistent block takes many tiles, so that the ring's stages and
  // barrier phases run on from tile to tile (the shapes above give a block one or two).
  for (std::int64_t n : {8, 32, 64}) {
    check_every_config(
        Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 40000, n, 4096),
        1.0, 0.0);
  }
}

TEST_F(SkinnyKernel, OutputsWithAlphaAndOddOffsets) {
  // Whole tiles of every kernel written with alpha ≠ 1 into a batch whose second matrix of C
  // starts 8 bytes off 16-byte alignment, with ldc = m and with ldc = m + 3.
  for (std::int64_t ldc_pad : {0, 3}) {
    for (std::int64_t n : {8, 13, 32}) {
      Problem p = Problem::make(OpKind::GemmStridedBatched, DType::BFloat16, Transpose::T,
                                Transpose::N, 256, n, 1024);
      p.batch = 2;
      p.ldc = p.m + ldc_pad;
      p.stride_c = p.ldc * p.n + 4;
      check_every_config(p, 0.5, 0.0);
    }
  }
}

TEST_F(SkinnyKernel, StagedTilesAcrossABatch) {
  // The warpgroup kernel stages tiles of C in shared memory and stores 16 bytes at a time where
  // beta = 0 and C's columns start on 16 bytes: here in every matrix of a batch, with m odd (the
  // last piece of each column shorter than 16 bytes) and alpha ≠ 1, in both 16-bit types.
  for (DType d : {DType::BFloat16, DType::Float16}) {
    for (std::int64_t n : {16, 40, 64}) {
      Problem p =
          Problem::make(OpKind::GemmStridedBatched, d, Transpose::T, Transpose::N, 203, n, 1024);
      p.batch = 3;
      p.ldc = 208;
      p.stride_c = p.ldc * p.n + 8;
      check_every_config(p, 0.5, 0.0);
    }
  }
}

TEST_F(SkinnyKernel, KThatEndsInsideAChunk) {
  // k a multiple of 8 (16-byte loads) but not of 32 (one tensor-core chunk), and short enough
  // that some warps get no chunk at all while the load ring runs past the end.
  for (std::int64_t k : {8, 40, 1000, 3080}) {
    for (std::int64_t n : {1, 8, 33, 64}) {
      check_every_config(
          Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 200, n, k), 1.0,
          0.0);
    }
  }
}

TEST_F(SkinnyKernel, LongK) {
  // 28672 = the 70B model's down projection: the longest sum of the benchmark's decode problems.
  for (std::int64_t n : {8, 64}) {
    check_every_config(
        Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 160, n, 28672),
        1.0, 0.0);
  }
}

TEST_F(SkinnyKernel, ElementLoadsWhereVectorsDoNotFit) {
  // k and lda odd: no 16-byte vector lines up (the tensor-core kernel falls back to element
  // loads on column slices: n = 40 takes three).
  check_every_config(
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 77, 40, 1001), 1.0,
      0.0);
  check_every_config(
      Problem::make(OpKind::Gemm, DType::Float16, Transpose::T, Transpose::N, 77, 3, 1001), 1.0,
      0.0);
  // PyTorch's matrix-vector record: ldc = 1.
  Problem vec = Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 96, 1, 64);
  vec.ldc = 1;
  check_every_config(vec, 1.0, 0.0);
}

TEST_F(SkinnyKernel, ADependentLaunchWaitsForThePreviousKernelsOutput) {
  // The kernels are launched dependent (they may start while the stream's previous kernel
  // finishes): the second of two chained GEMMs reads the first's C as its B, for every
  // configuration. C1 is poisoned with NaN before each chain; all-ones operands make
  // C1 = 512 and C2 = 512 · 1024 exactly, so a read of C1 before the first GEMM ended shows.
  const Problem first =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 1024, 8, 512);
  const Problem second =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 512, 8, 1024);
  const auto a = ones(1024 * 1024), b = ones(512 * 8);
  const auto c1 = backend_->allocate(1024 * 8 * 2), c2 = backend_->allocate(512 * 8 * 2);
  for (auto& s1 : provider_.enumerate(first, SearchOptions{})) {
    auto s2 = provider_.from_name(second, s1->name());
    ASSERT_NE(s2, nullptr) << s1->name();
    if (!s2->supports(second)) continue;
    Operands o1, o2;
    o1.a = a->data();
    o1.b = b->data();
    o1.c = c1->data();
    o2.a = a->data();
    o2.b = c1->data();
    o2.c = c2->data();
    expect_chained(*s1, first, o1, *s2, second, o2, *c1, *c2, 0x4900);  // 2^19
  }
}

TEST_F(SkinnyKernel, ADependentLaunchReadsThePreviousKernelsOutputAsA) {
  // The TMA kernels prefetch their first chunks of A into L2 before they wait for the previous
  // kernel (skinny_bulk_kernel.cuh, prefetch_first_stages): safe only because a prefetch warms L2
  // and every copy into shared memory is issued after the wait. Here the second GEMM reads the
  // first's C as its A, for every configuration of the second. C1 = 1024 x 64, all 512 with
  // all-ones operands, read as the second's A: 256 x 256 with lda = 256, so C2 = 512 · 256 = 2^17
  // exactly. The first GEMM runs the same configuration where it fits, else the first that does.
  const Problem first =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 1024, 64, 512);
  const Problem second =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 256, 8, 256);
  const auto a = ones(1024 * 512), b1 = ones(512 * 64), b2 = ones(256 * 8);
  const auto c1 = backend_->allocate(1024 * 64 * 2), c2 = backend_->allocate(256 * 8 * 2);
  auto firsts = provider_.enumerate(first, SearchOptions{});
  ASSERT_FALSE(firsts.empty());
  Operands o1, o2;
  o1.a = a->data();
  o1.b = b1->data();
  o1.c = c1->data();
  o2.a = c1->data();
  o2.b = b2->data();
  o2.c = c2->data();
  std::size_t chained = 0;
  for (auto& s2 : provider_.enumerate(second, SearchOptions{})) {
    auto same = provider_.from_name(first, s2->name());
    Solution& s1 = same && same->supports(first) ? *same : *firsts.front();
    expect_chained(s1, first, o1, *s2, second, o2, *c1, *c2, 0x4800);  // 2^17
    ++chained;
  }
  EXPECT_GT(chained, std::size(cuda::kSkinnyConfigs));  // the tensor-core kernels ran too
}

TEST_F(SkinnyKernel, NamesRoundTripAndMisfitsGetNoCandidates) {
  const Problem p =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 256, 8, 512);
  for (auto& s : provider_.enumerate(p, SearchOptions{})) {
    auto rebuilt = provider_.from_name(p, s->name());
    ASSERT_NE(rebuilt, nullptr) << s->name();
    EXPECT_EQ(rebuilt->name(), s->name());
    EXPECT_TRUE(rebuilt->supports(p));
  }
  EXPECT_EQ(provider_.from_name(p, "Default"), nullptr);
  const Problem nn =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::N, Transpose::N, 256, 8, 512);
  EXPECT_TRUE(provider_.enumerate(nn, SearchOptions{}).empty());
  const Support s =
      provider_.from_name(nn, cuda::skinny_solution_name(cuda::SkinnyConfig{1, 256}))->supports(nn);
  EXPECT_FALSE(s);
  EXPECT_NE(s.reason.find("tn"), std::string::npos) << s.reason;
  const Problem wide =
      Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, 256, 65, 512);
  EXPECT_TRUE(provider_.enumerate(wide, SearchOptions{}).empty());
}

}  // namespace
}  // namespace gemmtune
