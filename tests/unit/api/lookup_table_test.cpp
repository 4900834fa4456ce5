// LookupTable: finds what was put, replaces in place, refuses past half full; fast_hash tells
// apart problems that differ in any one field.
#include <gtest/gtest.h>

#include <set>

#include "api/lookup_table.hpp"

namespace gemmtune::api {
namespace {

Problem problem(std::int64_t m) {
  return Problem::make(OpKind::Gemm, DType::BFloat16, Transpose::T, Transpose::N, m, 64, 128);
}

TEST(LookupTable, PutFindReplaceAndFull) {
  LookupTable table(16);
  std::vector<std::unique_ptr<Entry>> entries;
  for (int i = 0; i < 8; ++i) {
    const Problem p = problem(16 + i);
    entries.push_back(std::make_unique<Entry>(p, fast_hash(p), EntryKind::Result, "S", 1.0));
    ASSERT_TRUE(table.put(entries.back().get()));
  }
  const Problem extra = problem(1000);
  Entry e(extra, fast_hash(extra), EntryKind::Result, "S", 1.0);
  EXPECT_FALSE(table.put(&e)) << "a 16-slot table takes 8 problems";
  for (int i = 0; i < 8; ++i) {
    const Problem p = problem(16 + i);
    EXPECT_EQ(table.find(p, fast_hash(p)), entries[static_cast<std::size_t>(i)].get());
  }
  EXPECT_EQ(table.find(extra, fast_hash(extra)), nullptr);
  const Problem p0 = problem(16);
  Entry replacement(p0, fast_hash(p0), EntryKind::Untuned, "Default", 0);
  EXPECT_TRUE(table.put(&replacement));
  EXPECT_EQ(table.find(p0, fast_hash(p0)), &replacement);
  EXPECT_EQ(table.size(), 8u);
}

TEST(LookupTable, FastHashSeesEveryField) {
  const Problem base = problem(64);
  std::vector<Problem> variants(14, base);
  variants[0].m += 1;
  variants[1].n += 1;
  variants[2].k += 1;
  variants[3].lda += 1;
  variants[4].ldb += 1;
  variants[5].ldc += 1;
  variants[6].batch += 1;
  variants[7].stride_a = 5;
  variants[8].stride_c = 5;
  variants[9].transa = Transpose::N;
  variants[10].c_type = DType::Float32;
  variants[11].op = OpKind::GemmAndBias;
  variants[12].bias_type = DType::BFloat16;
  variants[13].rowwise = true;
  std::set<std::uint64_t> hashes{fast_hash(base)};
  for (const auto& v : variants) hashes.insert(fast_hash(v));
  EXPECT_EQ(hashes.size(), variants.size() + 1);
}

}  // namespace
}  // namespace gemmtune::api
