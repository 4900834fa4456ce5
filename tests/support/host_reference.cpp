#include "host_reference.hpp"

namespace gemmtune::test_support {

std::vector<Complex> as_complex(std::span<const double> values, DType dtype) {
  std::vector<Complex> out;
  if (info(dtype).is_complex) {
    out.reserve(values.size() / 2);
    for (std::size_t i = 0; i + 1 < values.size(); i += 2)
      out.emplace_back(values[i], values[i + 1]);
  } else {
    out.assign(values.begin(), values.end());
  }
  return out;
}

Complex op_element(const std::vector<Complex>& x, Transpose t, std::int64_t ld, std::int64_t offset,
                   std::int64_t row, std::int64_t col) {
  if (t == Transpose::N) return x[static_cast<std::size_t>(offset + row + col * ld)];
  const Complex v = x[static_cast<std::size_t>(offset + col + row * ld)];
  return t == Transpose::C ? std::conj(v) : v;
}

}  // namespace gemmtune::test_support
