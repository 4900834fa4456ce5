// Merging results tables: several files of winners (from several machines or runs of the same
// environment) into one table.
//
// Contract:
// - The first source's environment is the merged table's. A source whose environment differs
//   is refused as a whole — mixing environments would make some winners wrong for the machine
//   that loads the file — and the refusal carries the differing keys. Nothing is printed; the
//   caller reports.
// - When two sources hold the same problem (same signatures), the faster time wins; on a tie
//   the entry seen first stays. Every conflict is reported with both solutions, both times,
//   which won and the sources. Identical entries are not conflicts.
// - Order: entries in order of first appearance; a winner from a later source replaces the
//   earlier entry in its place. Original time spellings are kept.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "validator/compare.hpp"
#include "db/results_table.hpp"

namespace gemmtune {

struct MergeSource {
  std::string name;  // a file name, for reports
  ResultsTable table;
};

struct MergeConflict {
  std::string op_signature;
  std::string params_signature;
  ResultEntry winner;
  std::string winner_source;
  ResultEntry loser;
  std::string loser_source;

  // "GemmTunableOp_..,tn_..: a.csv Default 0.0091 ms beats b.csv Gemm_Cublaslt_.. 0.0095 ms"
  std::string describe() const;
};

struct RefusedSource {
  std::string name;
  Comparison comparison;  // of the first source's environment (recorded) with this one's

  std::string describe(std::string_view first_source) const;
};

struct MergeResult {
  ResultsTable table;
  std::vector<MergeConflict> conflicts;
  std::vector<RefusedSource> refused;
};

MergeResult merge_tables(std::span<const MergeSource> sources);

}  // namespace gemmtune
