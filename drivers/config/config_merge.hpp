// merge_layer: lays one configuration over another by FlagPerf's rules, so that every override
// is deliberate and visible.
//
// Contract, for each key of the layer:
// - the base lacks it → it is added, and a *warning* says so (a misspelt key shows up here);
// - the base has another value → it is overridden, and a *change* line records
//   "key: old → new (file)";
// - the base has the same value (numbers compared by value) → InputError naming the key, the
//   layer's file and the file the base value came from: an override that changes nothing is a
//   mistake or a stale copy, and must be removed.
// Nothing is printed here: the notes are values, for the caller to show.
#pragma once

#include <string>
#include <vector>

#include "drivers/config/config_tree.hpp"

namespace gemmtune {

struct MergeNotes {
  std::vector<std::string> warnings;  // keys the base lacks, added
  std::vector<std::string> added;     // those keys, in the same order
  std::vector<std::string> changes;   // "tune.max_tuning_iterations: 100 → 200 (my.toml)"
};

// Merges `layer` into `base`; each added or changed entry keeps the layer's origin.
void merge_layer(ConfigTree& base, const ConfigTree& layer, MergeNotes& notes);

}  // namespace gemmtune
