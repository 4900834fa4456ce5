#include "solutions/cuda/cublaslt_algo_name.hpp"

#include <fmt/format.h>

#include <charconv>

namespace gemmtune::cuda {
namespace {

// Reads "<key>_<number>" at the front of `rest`, followed by '_' or the end, into `value`.
template <typename T>
bool take_field(std::string_view& rest, std::string_view key, T& value) {
  if (rest.substr(0, key.size()) != key) return false;
  rest.remove_prefix(key.size());
  if (rest.empty() || rest.front() != '_') return false;
  rest.remove_prefix(1);
  if (rest.empty() || rest.front() == '+') return false;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end == rest.data()) return false;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  if (!rest.empty()) {
    if (rest.front() != '_') return false;
    rest.remove_prefix(1);
  }
  return true;
}

}  // namespace

std::string algo_name(const AlgoConfig& c) {
  return fmt::format(
      "Gemm_Cublaslt_id_{}_tile_{}_stages_{}_splitk_{}_red_{}_swizzle_{}_custom_{}_inner_{}_"
      "cluster_{}",
      c.id, c.tile, c.stages, c.splitk, c.reduction, c.swizzle, c.custom, c.inner, c.cluster);
}

std::optional<AlgoConfig> parse_algo_name(std::string_view name) {
  if (name.substr(0, kCublasltNamePrefix.size()) != kCublasltNamePrefix) return std::nullopt;
  std::string_view rest = name.substr(kCublasltNamePrefix.size());
  AlgoConfig c;
  const bool ok = take_field(rest, "id", c.id) && take_field(rest, "tile", c.tile) &&
                  take_field(rest, "stages", c.stages) && take_field(rest, "splitk", c.splitk) &&
                  take_field(rest, "red", c.reduction) && take_field(rest, "swizzle", c.swizzle) &&
                  take_field(rest, "custom", c.custom) && take_field(rest, "inner", c.inner) &&
                  take_field(rest, "cluster", c.cluster);
  // The last field must end the name: take_field consumed a trailing '_' otherwise.
  if (!ok || !rest.empty() || name.back() == '_') return std::nullopt;
  return c;
}

}  // namespace gemmtune::cuda
