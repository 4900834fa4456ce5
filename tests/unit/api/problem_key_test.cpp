// The lookup key: batch strides spelt out at their dense values (as cuBLAS-style and C callers
// do) are the file's lines, which have no strides; strides the signatures cannot express are
// tuned in memory only, never written under the dense problem's signature.
#include "api/problem_key.hpp"

#include <gtest/gtest.h>

#include "tests/unit/api/api_test_util.hpp"

namespace gemmtune::testing {
namespace {

Problem dense_batched() {
  Problem p = Problem::make(OpKind::GemmStridedBatched, DType::Float32, Transpose::N, Transpose::N,
                            16, 12, 8);
  p.batch = 3;
  return p;
}

Problem explicit_dense_batched() {
  Problem p = dense_batched();
  p.stride_a = p.lda * p.k;
  p.stride_b = p.ldb * p.n;
  p.stride_c = p.ldc * p.n;
  return p;
}

// A is padded: 32 elements between its matrices, which the signature cannot say.
Problem padded_batched() {
  Problem p = dense_batched();
  p.stride_a = p.lda * p.k + 32;
  return p;
}

// Operands for a float batched problem, sized by its strides.
struct Operands3 {
  std::vector<float> a, b, c;
  explicit Operands3(const Problem& p)
      : a(static_cast<std::size_t>(p.a_elements()), 0.5f),
        b(static_cast<std::size_t>(p.b_elements()), 0.25f),
        c(static_cast<std::size_t>(p.c_elements()), 0.f) {}
  RunStatus run(Context& ctx, const Problem& p) {
    return ctx.gemm(p, a.data(), b.data(), c.data());
  }
};

std::string line_of(const Problem& p, std::string_view solution) {
  return p.op_signature() + "," + p.params_signature() + "," + std::string(solution) + ",0.01\n";
}

TEST(ProblemKey, DenseStridesSpeltOutAreNoStrides) {
  const Problem key = api::lookup_key(explicit_dense_batched());
  EXPECT_EQ(key, dense_batched());
  EXPECT_TRUE(api::signature_expresses(key));

  Problem single = explicit_dense_batched();
  single.batch = 1;
  single.stride_a = 12345;  // one matrix: nothing to stride over
  Problem single_dense = dense_batched();
  single_dense.batch = 1;
  EXPECT_EQ(api::lookup_key(single), single_dense);

  Problem overflowing = explicit_dense_batched();  // invalid: kept as it is, refused later
  overflowing.lda = std::int64_t{1} << 62;
  overflowing.stride_a = -1;
  EXPECT_EQ(api::lookup_key(overflowing).stride_a, -1);

  const Problem padded = api::lookup_key(padded_batched());
  EXPECT_EQ(padded, padded_batched());
  EXPECT_FALSE(api::signature_expresses(padded));
}

TEST(ProblemKey, ExplicitDenseStridesFindTheFilesResult) {
  TempDir dir;
  Counts counts;
  Log log;
  write_text(dir / "results.csv", validator_lines() + line_of(dense_batched(), "Default"));
  Context ctx(test_options(dir, counts, log));
  const Problem p = explicit_dense_batched();
  EXPECT_EQ(ctx.lookup(p).source, Source::Tuned);
  Operands3 ops(p);
  ASSERT_TRUE(ops.run(ctx, p).ok);
  EXPECT_EQ(ctx.lookup(p).source, Source::Tuned);
  EXPECT_EQ(ops.c[0], 8 * 0.5f * 0.25f);
}

TEST(ProblemKey, ExplicitDenseStridesAreTunedAndAppendedOnceAcrossRuns) {
  TempDir dir;
  Counts counts;
  Log log;
  const Problem p = explicit_dense_batched();
  Operands3 ops(p);
  for (int run = 0; run < 2; ++run) {
    Options o = test_options(dir, counts, log);
    o.tuning = true;
    Context ctx(o);
    EXPECT_EQ(ctx.lookup(p).source, run == 0 ? Source::Untuned : Source::Tuned);
    ASSERT_TRUE(ops.run(ctx, p).ok);
  }
  EXPECT_EQ(counts.enumerations_of(p), 1);
  EXPECT_EQ(lines_containing(dir / "results.csv", p.params_signature() + ","), 1u)
      << read_text(dir / "results.csv");
}

TEST(ProblemKey, ExplicitDenseStridesAreRecordedOnceAcrossRuns) {
  TempDir dir;
  Counts counts;
  Log log;
  const Problem p = explicit_dense_batched();
  Operands3 ops(p);
  for (int run = 0; run < 3; ++run) {
    Options o = test_options(dir, counts, log);
    o.record_untuned = true;
    Context ctx(o);
    ASSERT_TRUE(ops.run(ctx, p).ok);
  }
  EXPECT_EQ(lines_containing(dir / "untuned.csv", p.params_signature()), 1u)
      << read_text(dir / "untuned.csv");
}

// The padded problem's signature is the dense one's: a line written for it would be applied to
// the dense problem next run (and replace the dense problem's winner in write_file).
TEST(ProblemKey, StridesTheSignatureCannotExpressAreTunedInMemoryOnly) {
  TempDir dir;
  Counts counts;
  Log log;
  const std::string file = validator_lines() + line_of(dense_batched(), "Default");
  write_text(dir / "results.csv", file);
  const Problem padded = padded_batched();
  Problem padded_c = padded_batched();
  padded_c.stride_a = 0;
  padded_c.stride_c = padded_c.ldc * padded_c.n + 8;
  {
    Options o = test_options(dir, counts, log);
    o.tuning = true;
    o.record_untuned = true;
    Context ctx(o);
    EXPECT_EQ(ctx.lookup(padded).source, Source::Untuned) << "the dense problem's line";
    Operands3 ops(padded), ops_c(padded_c);
    ASSERT_TRUE(ops.run(ctx, padded).ok);
    ASSERT_TRUE(ops.run(ctx, padded).ok);
    ASSERT_TRUE(ops_c.run(ctx, padded_c).ok);
    EXPECT_EQ(ops.c[0], 8 * 0.5f * 0.25f);
    EXPECT_EQ(ctx.lookup(padded).source, Source::Tuned) << "tuned, in memory";
    EXPECT_EQ(counts.enumerations_of(padded), 2) << "each tuned once";
    EXPECT_EQ(ctx.results().size(), 1u) << "only the file's dense line";
    ctx.write_file();
  }
  EXPECT_EQ(read_text(dir / "results.csv"), file);
  EXPECT_FALSE(std::filesystem::exists(dir / "untuned.csv"));
  EXPECT_EQ(log.count_containing("cannot express"), 1u) << log.all();
  EXPECT_NE(log.all().find(padded.params_signature()), std::string::npos) << log.all();
}

}  // namespace
}  // namespace gemmtune::testing
