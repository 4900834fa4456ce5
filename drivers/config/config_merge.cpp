#include "drivers/config/config_merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// "configs/default.toml" or "configs/default.toml or configs/devices/h100_sxm.toml".
std::string origins_of(const ConfigTree& tree) {
  std::vector<std::string> seen;
  for (const auto& e : tree.entries()) {
    if (std::find(seen.begin(), seen.end(), e.origin) == seen.end()) seen.push_back(e.origin);
  }
  if (seen.empty()) return "the base configuration (empty)";
  return fmt::format("{}", fmt::join(seen, " or "));
}

}  // namespace

void merge_layer(ConfigTree& base, const ConfigTree& layer, MergeNotes& notes) {
  const std::string base_origins = origins_of(base);
  for (const ConfigEntry& e : layer.entries()) {
    const ConfigEntry* old = base.find(e.key);
    if (!old) {
      notes.warnings.push_back(fmt::format("{}: {} is not in {}; added (check the spelling)",
                                           e.origin, e.key, base_origins));
      notes.added.push_back(e.key);
    } else if (same_value(old->value, e.value)) {
      throw InputError(fmt::format("{}: {} = {} is the same as in {}; remove it", e.origin, e.key,
                                   to_toml(e.value), old->origin));
    } else {
      notes.changes.push_back(
          fmt::format("{}: {} → {} ({})", e.key, to_toml(old->value), to_toml(e.value), e.origin));
    }
    base.set(e.key, e.value, e.origin);
  }
}

}  // namespace gemmtune
