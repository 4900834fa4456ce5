// Untuned files: the GEMMs a program ran and wants tuned, one per line, as PyTorch writes them
// with PYTORCH_TUNABLEOP_RECORD_UNTUNED=1:
//
//   GemmTunableOp_BFloat16_TN,tn_1536_16_7168_ld_7168_7168_1536[,extra...]
//
// Contract: every line is parsed into a Problem; a bad line becomes a Diagnostic naming file,
// line, text and what is wrong (the reason comes from parse_problem), and the good lines are
// still returned (unless the Diagnostics is strict). Extra fields after the second are kept and
// written back. Reading several files or glob patterns keeps file order, then line order.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "db/diagnostics.hpp"
#include "tuner/problem.hpp"

namespace gemmtune {

struct UntunedEntry {
  Problem problem;
  std::string op_signature;      // as read; equal to problem.op_signature()
  std::string params_signature;  // as read; equal to problem.params_signature()
  std::vector<std::string> extra;
  std::string file;  // where it was read, for messages
  int line = 0;
};

// Parses an untuned file's content; `file` names it in diagnostics.
std::vector<UntunedEntry> parse_untuned(std::string_view content, std::string_view file,
                                        Diagnostics& diagnostics);

// Reads one file; throws InputError if it cannot be read at all.
std::vector<UntunedEntry> read_untuned_file(const std::filesystem::path& path,
                                            Diagnostics& diagnostics);

// Reads the files in order.
std::vector<UntunedEntry> read_untuned_files(std::span<const std::filesystem::path> paths,
                                             Diagnostics& diagnostics);

// Expands glob(3) patterns, each pattern's matches sorted; a pattern that matches nothing is an
// InputError naming it (a typo must not silently tune nothing).
std::vector<std::filesystem::path> expand_patterns(std::span<const std::string> patterns);

// expand_patterns, then read_untuned_files.
std::vector<UntunedEntry> read_untuned_patterns(std::span<const std::string> patterns,
                                                Diagnostics& diagnostics);

// Keeps the first occurrence of each problem (with its extra fields and location) and removes
// later ones; returns how many were removed.
std::size_t dedupe_untuned(std::vector<UntunedEntry>& entries);

// One line per entry: op_sig,params_sig[,extra...]\n
std::string format_untuned(std::span<const UntunedEntry> entries);

// Writes format_untuned atomically.
void write_untuned_file(const std::filesystem::path& path,
                        std::span<const UntunedEntry> entries);

}  // namespace gemmtune
