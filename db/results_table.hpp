// ResultsTable: the winners measured in one environment — what one CSV results file holds and
// what one environment of a SQLite store holds.
//
// Entries are keyed by their signature text (op_signature, params_signature), not by a parsed
// Problem, so that lines of kinds this version cannot parse keep their place and survive every
// round trip. Order is kept: files are written back in the order they were read.
//
// Times are written the way PyTorch writes them (format_time_ms). To make unchanged files round
// trip byte for byte even when a writer used another spelling ("1e-05", "0.0100"), the table
// remembers the original text of each time it read (`time_texts`) and reuses it while the
// entry's time_ms still equals the value that text parsed to. A changed time is formatted anew.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tuner/environment.hpp"
#include "tuner/result.hpp"

namespace gemmtune {

using ResultKey = std::pair<std::string, std::string>;  // op_signature, params_signature

struct TimeText {
  double value = 0;  // what `text` parsed to
  std::string text;
};

struct ResultsTable {
  Environment environment;
  std::vector<ResultEntry> entries;
  std::map<ResultKey, TimeText, std::less<>> time_texts;

  ResultEntry* find(std::string_view op_signature, std::string_view params_signature);
  const ResultEntry* find(std::string_view op_signature, std::string_view params_signature) const;

  // Replaces the entry with the same signatures in place, or appends it. Returns the entry that
  // was replaced, if any. An explicit `time_text` is remembered as the entry's spelling.
  std::optional<ResultEntry> upsert(ResultEntry entry,
                                    std::optional<std::string> time_text = std::nullopt);

  // The text to write for an entry's time: its remembered spelling, or format_time_ms.
  std::string time_text_of(const ResultEntry& entry) const;

  // find()'s index of `entries` by signature, so that reading a file of n lines takes time in
  // proportion to n, not n². upsert() keeps it; find() rebuilds it where entries were added
  // without upsert() or where it points at another entry. What it cannot notice is an entry added
  // directly after one was removed, or signatures changed in place: neither is done. Since find()
  // may rebuild it, a table is not to be read from two threads at once.
  mutable std::unordered_map<std::string, std::size_t> index_by_key = {};

 private:
  const ResultEntry* indexed(std::string_view op_signature,
                             std::string_view params_signature) const;
};

// PyTorch writes times with an ostream's default format, which is printf's %g (6 significant
// digits): 0.00737504, 0.0119782, 0.009208. Six digits are well below measurement noise.
std::string format_time_ms(double time_ms);

// Parses a time field: a finite, non-negative decimal number. On failure, says what is wrong.
struct ParsedTime {
  std::optional<double> value;
  std::string error;
};
ParsedTime parse_time_ms(std::string_view text);

}  // namespace gemmtune
