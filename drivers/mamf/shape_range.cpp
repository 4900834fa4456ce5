#include "drivers/mamf/shape_range.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tuner/error.hpp"

namespace gemmtune::mamf {

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
    if (step <= 0) throw InputError(fmt::format("--{}_range: STEP must be positive", spec.name));
    if (start < 0) throw InputError(fmt::format("--{}_range: START must not be negative", spec.name));
    if (start == 0) start = step;  // a dimension cannot be 0
    for (std::int64_t v = start; v < stop; v += step) out.push_back(v);
    if (out.empty()) {
      throw InputError(fmt::format("--{}_range {} {} {} holds no value (the stop is excluded)",
                                   spec.name, spec.range[0], spec.range[1], spec.range[2]));
    }
    return out;
  }
  if (spec.values.empty()) {
    throw InputError(fmt::format("give --{0} or --{0}_range", spec.name));
  }
  for (const auto v : spec.values) {
    if (v <= 0) throw InputError(fmt::format("--{}: {} is not a positive dimension", spec.name, v));
  }
  return spec.values;
}

std::string describe_ranges(const DimSpec& m, const DimSpec& n, const DimSpec& k) {
  const auto one = [](const DimSpec& d) {
    return fmt::format("{}=[{}]", d.name, fmt::join(d.is_range() ? d.range : d.values, ", "));
  };
  return fmt::format("{} | {} | {}", one(m), one(n), one(k));
}

std::string Shape::text() const { return fmt::format("{}x{}x{}", m, n, k); }

std::vector<Shape> make_shapes(const DimSpec& m, const DimSpec& n, const DimSpec& k) {
  const auto ms = expand(m), ns = expand(n), ks = expand(k);
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
