#include "drivers/mamf/shape_range.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

constexpr const char* kWhyMaxDimension = "cuBLAS and BLAS take 32-bit dimensions";

}  // namespace

std::vector<std::int64_t> expand(const DimSpec& spec) {
  std::vector<std::int64_t> out;
  if (spec.is_range()) {
    if (!spec.values.empty()) {
      throw InputError(fmt::format("--{0} and --{0}_range exclude each other", spec.name));
    }
    if (spec.range.size() != 3) {
      throw InputError(fmt::format("--{}_range takes START STOP STEP, got {} value(s)", spec.name,
                                   spec.range.size()));
    }
    auto [start, stop, step] = std::tuple{spec.range[0], spec.range[1], spec.range[2]};
    const auto text = [&] {
      return fmt::format("--{}_range {} {} {}", spec.name, spec.range[0], spec.range[1],
                         spec.range[2]);
    };
    if (step == 0) throw InputError(fmt::format("--{}_range: STEP must not be 0", spec.name));
    if (start < 0)
      throw InputError(fmt::format("--{}_range: START must not be negative", spec.name));
    if (start == 0) start = step;  // a dimension cannot be 0 (mamf-finder.py does the same)
    if (start <= 0) {
      throw InputError(
          fmt::format("{}: a START of 0 becomes STEP, {}, which is no dimension", text(), step));
    }
    if (step > 0 ? start >= stop : start <= stop) {
      throw InputError(fmt::format("{} holds no value (the stop is excluded)", text()));
    }
    // Descending, as numpy.arange counts with a negative step: every value stays above the stop,
    // so a stop below 0 would take the last ones to 0 or below.
    if (step < 0 && stop < 0) {
      throw InputError(fmt::format(
          "{}: with a negative STEP the values go down to the stop, so it must not be negative "
          "(a dimension is at least 1)",
          text()));
    }
    // Counted, not stepped: `v += step` past INT64_MAX would wrap and never reach the stop.
    // The distance cannot overflow (the values and the stop are non-negative here), and
    // start + i * step stays between them.
    const std::int64_t distance = step > 0 ? stop - start : start - stop;
    // |step| without negating INT64_MIN.
    const std::uint64_t stride =
        step > 0 ? static_cast<std::uint64_t>(step) : static_cast<std::uint64_t>(-(step + 1)) + 1;
    const auto count =
        static_cast<std::int64_t>(static_cast<std::uint64_t>(distance - 1) / stride + 1);
    if (count > kMaxValuesPerDim) {
      throw InputError(fmt::format("{} holds {} values, more than the {} a dimension may have",
                                   text(), count, kMaxValuesPerDim));
    }
    const std::int64_t largest = step > 0 ? start + (count - 1) * step : start;
    if (largest > kMaxDimension) {
      throw InputError(fmt::format("{} reaches {}, more than {}: {}", text(), largest,
                                   kMaxDimension, kWhyMaxDimension));
    }
    out.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) out.push_back(start + i * step);
    return out;
  }
  if (spec.values.empty()) {
    throw InputError(fmt::format("give --{0} or --{0}_range", spec.name));
  }
  if (spec.values.size() > static_cast<std::size_t>(kMaxValuesPerDim)) {
    throw InputError(fmt::format("--{}: {} values, more than the {} a dimension may have",
                                 spec.name, spec.values.size(), kMaxValuesPerDim));
  }
  for (const auto v : spec.values) {
    if (v <= 0) throw InputError(fmt::format("--{}: {} is not a positive dimension", spec.name, v));
    if (v > kMaxDimension) {
      throw InputError(fmt::format("--{}: {} is more than {}: {}", spec.name, v, kMaxDimension,
                                   kWhyMaxDimension));
    }
  }
  return spec.values;
}

std::string describe_ranges(const DimSpec& m, const DimSpec& n, const DimSpec& k) {
  const auto one = [](const DimSpec& d) {
    return fmt::format("{}=[{}]", d.name, fmt::join(d.is_range() ? d.range : d.values, ", "));
  };
  return fmt::format("{} | {} | {}", one(m), one(n), one(k));
}

std::string Shape::text() const {
  return fmt::format("{}x{}x{}", m, n, k);
}

namespace {

// The product of the dimensions' value counts, refused above kMaxShapes.
std::uint64_t checked_count(const DimSpec& m, const DimSpec& n, const DimSpec& k, std::size_t ms,
                            std::size_t ns, std::size_t ks) {
  // Each count is at most kMaxValuesPerDim (1e6), so the product fits in 64 bits before the cap.
  const auto shapes = static_cast<std::uint64_t>(ms) * ns * ks;
  if (shapes > static_cast<std::uint64_t>(kMaxShapes)) {
    const auto option = [](const DimSpec& d) {
      return "--" + d.name + (d.is_range() ? "_range" : "");
    };
    throw InputError(
        fmt::format("{} x {} x {} = {} shapes ({} {} {}), more than the {} a sweep may "
                    "have",
                    ms, ns, ks, shapes, option(m), option(n), option(k), kMaxShapes));
  }
  return shapes;
}

}  // namespace

std::uint64_t count_shapes(const DimSpec& m, const DimSpec& n, const DimSpec& k) {
  return checked_count(m, n, k, expand(m).size(), expand(n).size(), expand(k).size());
}

std::vector<Shape> make_shapes(const DimSpec& m, const DimSpec& n, const DimSpec& k) {
  const auto ms = expand(m), ns = expand(n), ks = expand(k);
  checked_count(m, n, k, ms.size(), ns.size(), ks.size());
  std::vector<Shape> out;
  out.reserve(ms.size() * ns.size() * ks.size());
  for (const auto mv : ms) {
    for (const auto nv : ns) {
      for (const auto kv : ks) out.push_back({mv, nv, kv});
    }
  }
  return out;
}

}  // namespace gemmtune::mamf
