// The problems a tuning run is asked for, and the ones its outputs already hold: what the
// single-device run and the multi-device coordinator share.
//
// Contract:
// - read_requested_problems: untuned files and patterns in order, then --problem, deduped across
//   all of them (the first occurrence keeps its extra fields), then this rank's share when a shard
//   is active (shard.hpp). Bad lines go to `diagnostics`.
// - add_tuned_signatures: the signatures a store holds for `environment`, so that a rerun skips
//   them. It is the check a run makes on its outputs before tuning, so that no result is measured
//   and then lost at its save: an output that cannot be written (its directory is missing or not
//   writable) is an InputError naming it (check_can_write); a CSV file holding results of another
//   environment, or only lines it cannot read, is refused with ValidatorMismatchError (a CSV file
//   holds one environment, and appending would mix them); a CSV file that holds nothing
//   (holds_nothing: blank, a BOM alone) is fine, the first save replaces it. A SQLite store holds
//   several environments and is never refused. The store's lines it cannot read are kept as they
//   are; where `warnings` is given, each becomes a warning there, since its problem (if it has
//   one) is measured again and appended.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "db/diagnostics.hpp"
#include "db/results_store.hpp"
#include "db/untuned_file.hpp"
#include "drivers/tune_options.hpp"

namespace gemmtune {

class ValidatorMismatchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RequestedProblems {
  std::vector<UntunedEntry> entries;         // this rank's share
  std::size_t all = 0;                       // distinct problems before sharding
  std::vector<std::filesystem::path> files;  // every untuned file read, whatever its lines gave
};

RequestedProblems read_requested_problems(const TuneOptions& options, Diagnostics& diagnostics);

using SignatureSet = std::set<std::pair<std::string, std::string>>;

// Throws InputError naming `path` unless a tuning run can append its results there: the checks of
// check_can_write, and, for a file that exists, that this user may write it. Before any problem
// is measured, so that no result is measured only to be refused at its save.
void require_appendable(const std::filesystem::path& path);

void add_tuned_signatures(ResultsStore& store, const Environment& environment, SignatureSet& done,
                          Diagnostics* warnings = nullptr);

}  // namespace gemmtune
