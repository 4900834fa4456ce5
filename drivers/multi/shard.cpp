#include "drivers/multi/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

Shard checked(std::optional<int> index, std::optional<int> count, std::string source,
              std::string_view shown) {
  if (!index || !count || *count < 1 || *index < 0 || *index >= *count) {
    throw InputError(
        fmt::format("{}: '{}' is not a shard: expected I/N with 0 <= I < N", source, shown));
  }
  return Shard{*index, *count, std::move(source)};
}

}  // namespace

Shard parse_shard(std::string_view text, std::string source) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return checked({}, {}, std::move(source), text);
  return checked(parse_int(text.substr(0, slash)), parse_int(text.substr(slash + 1)),
                 std::move(source), text);
}

std::optional<Shard> shard_from_environment(const EnvironmentLookup& getenv) {
  struct Pair {
    const char* rank;
    const char* size;
  };
  static constexpr Pair kLaunchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      // The step's size, which srun sets; never SLURM_NTASKS: a batch script outside srun has
      // SLURM_PROCID 0 and SLURM_NTASKS of the whole job, and a plain `tune` there took shard
      // 0 of N, leaving the other shares untuned with exit 0.
      {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},
  };
  for (const auto& launcher : kLaunchers) {
    const char* rank = getenv(launcher.rank);
    if (rank == nullptr) continue;
    const char* size = getenv(launcher.size);
    if (size == nullptr) continue;
    const std::string source = fmt::format("{}/{}", launcher.rank, launcher.size);
    return checked(parse_int(rank), parse_int(size), source, fmt::format("{}/{}", rank, size));
  }
  return std::nullopt;
}

double problem_cost(const Problem& problem) {
  constexpr double kFloor = 2.0 * 512 * 512 * 512;
  return problem.flops() + kFloor;
}

std::vector<int> assign_shares(std::span<const double> costs, std::span<const std::string> keys,
                               int count) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (costs[a] != costs[b]) return costs[a] > costs[b];
    return keys[a] < keys[b];
  });
  std::vector<double> load(static_cast<std::size_t>(std::max(count, 1)), 0.0);
  std::vector<int> share(costs.size(), 0);
  for (const std::size_t i : order) {
    const auto lightest = std::min_element(load.begin(), load.end()) - load.begin();
    share[i] = static_cast<int>(lightest);
    load[static_cast<std::size_t>(lightest)] += costs[i];
  }
  return share;
}

}  // namespace gemmtune
