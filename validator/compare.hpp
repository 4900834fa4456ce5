// Compares the validators a results file recorded with the current (or another) environment and
// explains every difference by key, with both values.
//
// Policy: a key present on both sides with different values is a mismatch, and a file with a
// mismatch is refused unless the user overrides. A key only one side has cannot be checked; it is
// reported but does not refuse the file (a PyTorch file records PT_VERSION, which gemmtune cannot
// know; an older gemmtune file may lack a key a newer backend reports). With `strict_keys` such
// keys are mismatches too, which is PyTorch's own rule.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/environment.hpp"

namespace gemmtune {

enum class KeyStatus { Match, Differs, OnlyRecorded, OnlyCurrent };

struct KeyComparison {
  std::string key;
  KeyStatus status = KeyStatus::Match;
  std::optional<std::string> recorded;  // value in the file
  std::optional<std::string> current;   // value here (or in the --against file)
};

struct ValidationPolicy {
  bool strict_keys = false;
};

struct Comparison {
  std::vector<KeyComparison> keys;  // recorded keys in file order, then keys only current has
  ValidationPolicy policy;
  // What explain() calls the side compared with: empty for this machine ("current"), another
  // file's name where the comparison is with that file.
  std::string compared_with;

  bool is_mismatch(const KeyComparison& key) const;
  bool matches() const;
  std::size_t mismatch_count() const;
  // One line per key: "  ok        KEY = value", "  DIFFERS   KEY: file has 'a', current has 'b'".
  std::string explain() const;
  // Only the mismatches, on one line each, for error messages.
  std::string explain_mismatches() const;
  // Every key that is not the same on both sides, in key order.
  std::vector<KeyComparison> differences() const;
  // Those keys on one line, naming the two sides: "PT_VERSION: a.csv '2.11.0', b.csv '2.12.0';
  // CUBLASLT_VERSION: a.csv lacks it, b.csv '130100'" — for refusals that must fit a message.
  std::string summarize_differences(std::string_view recorded_name,
                                    std::string_view current_name) const;
};

Comparison compare_environments(const Environment& recorded, const Environment& current,
                                ValidationPolicy policy = {});

// How a results table's environment stands to this machine's, for choosing among a file's
// tables: 2 it is this very environment, 1 it was measured here (no validator both have differs:
// a PyTorch file's PT_VERSION alone matches every machine), 0 it was measured elsewhere.
int environment_rank(const Environment& table, const Environment& here);

// A validator value as shown beside text of its own: as it is, or in single quotes where it
// would not read as one value — it holds a comma (the lists' separator; such a value is the rest
// of its Validator line, as PyTorch writes it), or spaces at either end, or it is empty.
std::string quote_validator_value(std::string_view value);

// "PT_VERSION=2.11.0, GEMMTUNE_VERSION=0.1.0" (or "no validators"); values quoted as
// quote_validator_value says ("ROCM_VERSION='6.0,1'").
std::string describe_environment(const Environment& environment);

}  // namespace gemmtune
