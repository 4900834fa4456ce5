#include "cli/number_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace gemmtune::cli {

CLI::Validator finite_number(double min, double max, bool min_excluded) {
  const bool bounded_above = max < std::numeric_limits<double>::max();
  std::string want = fmt::format("a finite number {} {}", min_excluded ? ">" : ">=", min);
  if (bounded_above) want += fmt::format(" and <= {}", max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) ||
            (min_excluded ? value <= min : value < min) || value > max) {
          return fmt::format("must be {}, not '{}'", want, text);
        }
        return {};
      },
      want);
}

CLI::Validator finite_non_negative() {
  return finite_number(0, std::numeric_limits<double>::max());
}

CLI::Validator finite_positive() {
  return finite_number(0, std::numeric_limits<double>::max(), /*min_excluded=*/true);
}

CLI::Validator finite_range(double min, double max) {
  return finite_number(min, max);
}

}  // namespace gemmtune::cli
