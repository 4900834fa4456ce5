// Shape lists and ranges exactly as mamf-finder.py takes them.
#include "drivers/mamf/shape_range.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

DimSpec range(std::string name, std::int64_t a, std::int64_t b, std::int64_t c) {
  return {std::move(name), {}, {a, b, c}};
}
DimSpec list(std::string name, std::vector<std::int64_t> v) {
  return {std::move(name), v, {}};
}

TEST(ShapeRange, StartZeroBecomesTheStepAndTheStopIsExcluded) {
  const auto v = expand(range("m", 0, 20480, 256));
  ASSERT_EQ(v.size(), 79u);  // the quick range of mamf-finder's docs: 256 ... 20224
  EXPECT_EQ(v.front(), 256);
  EXPECT_EQ(v.back(), 20224);
}

TEST(ShapeRange, NonZeroStartIsKeptAndStopExcluded) {
  EXPECT_EQ(expand(range("n", 100, 400, 100)), (std::vector<std::int64_t>{100, 200, 300}));
  EXPECT_EQ(expand(range("n", 100, 401, 100)), (std::vector<std::int64_t>{100, 200, 300, 400}));
}

// numpy.arange with a negative step, as mamf-finder.py sweeps it: down to the stop, excluded.
TEST(ShapeRange, ANegativeStepCountsDown) {
  EXPECT_EQ(expand(range("m", 1024, 0, -256)), (std::vector<std::int64_t>{1024, 768, 512, 256}));
  EXPECT_EQ(expand(range("m", 1000, 255, -250)), (std::vector<std::int64_t>{1000, 750, 500}));
  EXPECT_EQ(expand(range("m", 1000, 250, -250)), (std::vector<std::int64_t>{1000, 750, 500}));
  // A step larger than the range, down to the smallest int64, is one value (no negation
  // overflows).
  EXPECT_EQ(expand(range("m", 100, 0, std::numeric_limits<std::int64_t>::min())),
            (std::vector<std::int64_t>{100}));
}

TEST(ShapeRange, ListsAreTakenAsGiven) {
  EXPECT_EQ(expand(list("k", {4096, 1024})), (std::vector<std::int64_t>{4096, 1024}));
}

TEST(ShapeRange, MalformedSpecsAreInputErrors) {
  EXPECT_THROW(expand({"m", {}, {0, 100}}), InputError);        // two values
  EXPECT_THROW(expand(range("m", 0, 100, 0)), InputError);      // zero step
  EXPECT_THROW(expand(range("m", 0, 100, -4)), InputError);     // 0 becomes -4: no dimension
  EXPECT_THROW(expand(range("m", 256, 512, -64)), InputError);  // descending, start below stop
  EXPECT_THROW(expand(range("m", 256, -1, -64)), InputError);   // descending to 0 and below
  EXPECT_THROW(expand(range("m", 512, 512, 256)), InputError);  // empty: stop excluded
  EXPECT_THROW(expand(list("m", {})), InputError);              // nothing given
  EXPECT_THROW(expand(list("m", {64, 0})), InputError);         // a zero dimension
  EXPECT_THROW(expand({"m", {64}, {0, 128, 64}}), InputError);  // both forms
  try {
    expand(range("k", 0, 100, 0));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--k_range"), std::string::npos) << e.what();
  }
}

TEST(ShapeRange, ShapesAreVisitedMOuterThenNThenK) {
  const auto shapes = make_shapes(list("m", {1, 2}), list("n", {10, 20}), list("k", {7}));
  ASSERT_EQ(shapes.size(), 4u);
  EXPECT_EQ(shapes[0], (Shape{1, 10, 7}));
  EXPECT_EQ(shapes[1], (Shape{1, 20, 7}));
  EXPECT_EQ(shapes[2], (Shape{2, 10, 7}));
  EXPECT_EQ(shapes[3].text(), "2x20x7");
  EXPECT_DOUBLE_EQ(shapes[3].flops(), 2.0 * 2 * 20 * 7);
}

TEST(ShapeRange, RangeInfoReadsLikeMamfFinders) {
  EXPECT_EQ(describe_ranges(range("m", 0, 20480, 256), list("n", {4096}), list("k", {4096})),
            "m=[0, 20480, 256] | n=[4096] | k=[4096]");
}

// A step that would carry past INT64_MAX neither wraps around forever nor yields a dimension that
// cuBLAS cannot take: such values are usage errors naming the option.
TEST(ShapeRange, RangesNearTheLimitDoNotOverflow) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const auto message = [](const DimSpec& spec) {
    try {
      expand(spec);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message(range("m", 1, max, std::int64_t{1} << 62)),
            "--m_range 1 9223372036854775807 4611686018427387904 reaches 4611686018427387905, "
            "more than 2147483647: cuBLAS and BLAS take 32-bit dimensions");
  EXPECT_NE(message(range("m", max - 1, max, 5)).find("more than 2147483647"), std::string::npos);
  EXPECT_EQ(message(list("n", {64, 3000000000})),
            "--n: 3000000000 is more than 2147483647: cuBLAS and BLAS take 32-bit dimensions");
  EXPECT_EQ(expand(range("k", kMaxDimension, kMaxDimension + 1, 7)),
            (std::vector<std::int64_t>{kMaxDimension}));
  EXPECT_EQ(expand(list("k", {kMaxDimension})), (std::vector<std::int64_t>{kMaxDimension}));
}

// Too many values in one dimension, or too many shapes in all, is an error naming the option,
// not an endless loop or an exhausted memory.
TEST(ShapeRange, HugeSweepsAreInputErrorsNamingTheOption) {
  try {
    expand(range("m", 1, 100000000000, 1));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--m_range"), std::string::npos) << e.what();
  }
  try {
    make_shapes(list("m", {64}), range("n", 0, 1000000, 1), range("k", 0, 100000, 1));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--n_range"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--k_range"), std::string::npos) << e.what();
  }
  EXPECT_EQ(expand(range("m", 0, kMaxValuesPerDim, 1)).size(),
            static_cast<std::size_t>(kMaxValuesPerDim - 1));
}

// count_shapes refuses what make_shapes refuses, without making the shapes.
TEST(ShapeRange, CountShapesChecksAsMakeShapesDoes) {
  // n: 10, 20, ..., 90 (a start of 0 becomes the step; the stop is excluded)
  EXPECT_EQ(count_shapes(list("m", {1, 2}), range("n", 0, 100, 10), list("k", {7})), 18u);
  EXPECT_THROW(count_shapes(list("m", {64}), range("n", 0, 1000000, 1), range("k", 0, 100000, 1)),
               InputError);
  EXPECT_THROW(count_shapes(list("m", {64}), list("n", {64}), list("k", {})), InputError);
}

}  // namespace
}  // namespace gemmtune::mamf
