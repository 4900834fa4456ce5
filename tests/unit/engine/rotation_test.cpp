#include "tuner/rotation.hpp"

#include <gtest/gtest.h>

#include "fake_backend.hpp"
#include "tuner/operand_sets.hpp"

namespace gemmtune {
namespace {

constexpr std::size_t MiB = 1024 * 1024;
constexpr std::size_t GiB = 1024 * MiB;

TEST(Rotation, DefaultCoversTwiceTheLastLevelCache) {
  const RotationPlan plan = plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, std::nullopt, false);
  EXPECT_EQ(plan.copies, 10);  // 100 MiB / 10 MiB
  EXPECT_EQ(plan.target_bytes, 100 * MiB);
  EXPECT_EQ(plan.footprint_bytes, 100 * MiB);
  EXPECT_FALSE(plan.flush);
  EXPECT_TRUE(plan.fits);
}

TEST(Rotation, RoundsUpToCoverTheTarget) {
  EXPECT_EQ(plan_rotation(30 * MiB, 50 * MiB, 8 * GiB, std::nullopt, false).copies,
            4);  // 120 >= 100
}

TEST(Rotation, ProblemLargerThanTargetNeedsOneCopy) {
  const RotationPlan plan = plan_rotation(300 * MiB, 50 * MiB, 8 * GiB, std::nullopt, false);
  EXPECT_EQ(plan.copies, 1);
  EXPECT_FALSE(plan.flush);
}

TEST(Rotation, ExplicitMegabytes) {
  EXPECT_EQ(plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, 256.0, false).copies, 26);
  EXPECT_EQ(plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, 256.0, false).target_bytes, 256 * MiB);
}

TEST(Rotation, ATargetBeyondMemoryTakesWhatFitsAndFlushes) {
  // 1e300 MiB saturates the target to SIZE_MAX, which rounding up must not wrap to one copy.
  const RotationPlan plan = plan_rotation(10 * MiB, 50 * MiB, 1 * GiB, 1e300, false);
  EXPECT_EQ(plan.copies, 102);  // what fits in 1 GiB
  EXPECT_TRUE(plan.flush);
}

TEST(Rotation, ZeroTurnsRotationOffWithoutFlush) {
  const RotationPlan plan = plan_rotation(1 * MiB, 50 * MiB, 8 * GiB, 0.0, false);
  EXPECT_EQ(plan.copies, 1);
  EXPECT_EQ(plan.target_bytes, 0u);
  EXPECT_FALSE(plan.flush);
}

TEST(Rotation, MemoryCapFallsBackToFlush) {
  const RotationPlan plan = plan_rotation(10 * MiB, 500 * MiB, 45 * MiB, std::nullopt, false);
  EXPECT_EQ(plan.copies, 4);  // what fits in 45 MiB
  EXPECT_TRUE(plan.flush);
  EXPECT_TRUE(plan.fits);
}

TEST(Rotation, PutsACopyInEveryPlacementWithoutFlushing) {
  // One set covers the target; eight placements are asked for and memory holds them.
  const RotationPlan plan = plan_rotation(300 * MiB, 50 * MiB, 8 * GiB, std::nullopt, false, 8);
  EXPECT_EQ(plan.copies, 8);
  EXPECT_EQ(plan.footprint_bytes, 8 * 300 * MiB);
  EXPECT_FALSE(plan.flush);
  EXPECT_EQ(plan.placements, 8);
  EXPECT_NE(plan.describe().find("in 8 placements"), std::string::npos) << plan.describe();
  // The footprint's own count stands where it is the larger.
  const RotationPlan more = plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, std::nullopt, false, 8);
  EXPECT_EQ(more.copies, 10);
  EXPECT_EQ(more.placements, 8);
}

TEST(Rotation, PlacementsTakeWhatMemoryHoldsWithoutFlushing) {
  // Three sets fit; the target needs one: three placements, and the cache is still cold.
  const RotationPlan plan = plan_rotation(300 * MiB, 50 * MiB, 1 * GiB, std::nullopt, false, 8);
  EXPECT_EQ(plan.copies, 3);
  EXPECT_EQ(plan.placements, 3);
  EXPECT_FALSE(plan.flush);
}

TEST(Rotation, PlacementsLeaveRotationOffAlone) {
  const RotationPlan plan = plan_rotation(300 * MiB, 50 * MiB, 8 * GiB, 0.0, false, 8);
  EXPECT_EQ(plan.copies, 1);
  EXPECT_EQ(plan.placements, 1);
}

TEST(Rotation, FlushRequestedIsKept) {
  EXPECT_TRUE(plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, std::nullopt, true).flush);
  EXPECT_TRUE(plan_rotation(10 * MiB, 50 * MiB, 8 * GiB, 0.0, true).flush);
}

TEST(Rotation, OneSetLargerThanMemoryDoesNotFit) {
  const RotationPlan plan = plan_rotation(2 * GiB, 50 * MiB, 1 * GiB, std::nullopt, false);
  EXPECT_FALSE(plan.fits);
  EXPECT_NE(plan.describe().find("does not fit"), std::string::npos);
}

TEST(Rotation, UnknownCacheSizeMeansOneCopy) {
  EXPECT_EQ(plan_rotation(1 * MiB, 0, 8 * GiB, std::nullopt, false).copies, 1);
}

TEST(Rotation, SlicesAreAligned) {
  EXPECT_EQ(slice_bytes(1), kSliceAlignment);
  EXPECT_EQ(slice_bytes(kSliceAlignment), kSliceAlignment);
  EXPECT_EQ(slice_bytes(kSliceAlignment + 1), 2 * kSliceAlignment);
}

TEST(Rotation, SetBytesCountsEveryOperand) {
  Problem p =
      Problem::make(OpKind::GemmAndBias, DType::Float32, Transpose::N, Transpose::N, 64, 32, 16);
  // A 64×16, B 16×32, C 64×32 floats, bias 64 floats; each slice 256-byte aligned.
  EXPECT_EQ(OperandSets::set_bytes(p), 64 * 16 * 4 + 16 * 32 * 4 + 64 * 32 * 4 + 256);
}

TEST(Rotation, PoisonIsNaNForEveryType) {
  EXPECT_EQ(poison_byte(DType::Float32), 0xFF);
  EXPECT_EQ(poison_byte(DType::Float8E4M3Fnuz), 0x80);
  EXPECT_EQ(poison_byte(DType::Float8E5M2Fnuz), 0x80);
}

TEST(OperandSets, SpreadsItsCopiesOverThePlacements) {
  testing::FakeBackend backend;
  const Problem problem =
      Problem::make(OpKind::Gemm, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  RotationPlan plan;
  plan.copies = 5;
  plan.placements = 2;
  const int before = backend.allocations;
  OperandSets sets(backend, problem, plan, 0, 1, 1.0, 0.0);
  EXPECT_EQ(backend.allocations - before, 3 * 2 + 1);  // A, B and C per placement; the check C
  auto a = [&](int copy) { return static_cast<const float*>(sets.operands(copy).a); };
  // Copies 0, 2 and 4 share placement 0, a slice (8 x 8 floats) apart; 1 and 3 lie in the other.
  EXPECT_EQ(a(2), a(0) + 64);
  EXPECT_EQ(a(4), a(0) + 128);
  EXPECT_EQ(a(3), a(1) + 64);
  EXPECT_EQ(a(5), a(0));        // the rotation wraps
  EXPECT_NE(a(1)[0], a(0)[0]);  // another placement holds other values
  EXPECT_NE(a(2)[0], a(0)[0]);
  // Placement 0 holds what one allocation holds: copy 0, which the numerical checks use, keeps
  // its values whatever the placements.
  RotationPlan one;
  one.copies = 5;
  OperandSets single(backend, problem, one, 0, 1, 1.0, 0.0);
  EXPECT_EQ(static_cast<const float*>(single.operands(0).a)[0], a(0)[0]);
  EXPECT_EQ(static_cast<const float*>(single.operands(0).a)[63], a(0)[63]);
}

TEST(OperandSets, SpreadsTheBiasOverThePlacementsToo) {
  testing::FakeBackend backend;
  const Problem problem =
      Problem::make(OpKind::GemmAndBias, DType::Float32, Transpose::N, Transpose::N, 8, 8, 8);
  RotationPlan plan;
  plan.copies = 3;
  plan.placements = 2;
  const int before = backend.allocations;
  OperandSets sets(backend, problem, plan, 0, 1, 1.0, 0.0);
  EXPECT_EQ(backend.allocations - before, 4 * 2 + 1);  // A, B, C and bias per placement; check C
  auto bias = [&](int copy) { return static_cast<const float*>(sets.operands(copy).bias); };
  // 8 floats of bias take a 256-byte slice (64 floats); copies 0 and 2 share placement 0.
  EXPECT_EQ(bias(2), bias(0) + 64);
  EXPECT_NE(bias(1), bias(0) + 64);
  EXPECT_NE(bias(1)[0], bias(0)[0]);
}

}  // namespace
}  // namespace gemmtune
