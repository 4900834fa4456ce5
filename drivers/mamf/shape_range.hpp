// ShapeRange: the M, N and K values a MAMF sweep visits, given exactly as mamf-finder.py takes
// them — a list (`--m 1024 2048`) or a range (`--m_range START STOP STEP`).
//
// Contract (mamf-finder's, numpy.arange semantics): a range yields START, START+STEP, ... while
// below STOP (the stop is excluded), or while above it for a negative STEP (`--m_range 1024 0
// -256`: 1024, 768, 512, 256); a START of 0 becomes STEP, because a dimension cannot be 0. A
// range needs exactly three values and a STEP other than 0; every value must be positive and at
// most kMaxDimension.
// A dimension holds at most kMaxValuesPerDim values and a sweep at most kMaxShapes shapes, so that
// a mistyped range is an error, not an endless loop or an exhausted memory. Violations are
// InputErrors naming the option. Shapes are visited M outermost, then N, then K, as
// mamf-finder's nested loops do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmtune::mamf {

// Far above any real sweep (mamf-finder's largest, 0..20480 step 256 in all three, is 79^3 ~ 0.5M
// shapes), yet small enough that the shape list fits in memory (24 bytes a shape).
inline constexpr std::int64_t kMaxValuesPerDim = 1'000'000;
inline constexpr std::int64_t kMaxShapes = 10'000'000;
// cuBLAS and BLAS take int dimensions: a larger one is a usage error, not a shape to try.
inline constexpr std::int64_t kMaxDimension = 2'147'483'647;

struct DimSpec {
  std::string name;                  // "m", "n" or "k", for messages
  std::vector<std::int64_t> values;  // --m / --n / --k, when given
  std::vector<std::int64_t> range;   // --m_range START STOP STEP, when given
  bool is_range() const { return !range.empty(); }
};

// The values a spec stands for; throws InputError when it is malformed or empty.
std::vector<std::int64_t> expand(const DimSpec& spec);

// mamf-finder's range_info text: "m=[0, 20480, 256] | n=[4096] | k=[4096]".
std::string describe_ranges(const DimSpec& m, const DimSpec& n, const DimSpec& k);

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  std::string text() const;  // "256x4096x4096" (MxNxK)
  friend bool operator==(const Shape&, const Shape&) = default;
};

// How many shapes the sweep has, without making them; throws InputError as make_shapes does.
std::uint64_t count_shapes(const DimSpec& m, const DimSpec& n, const DimSpec& k);

// Every (m, n, k) in mamf-finder's order.
std::vector<Shape> make_shapes(const DimSpec& m, const DimSpec& n, const DimSpec& k);

}  // namespace gemmtune::mamf
