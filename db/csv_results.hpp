// Results CSV: PyTorch TunableOp's results file, read and written byte for byte.
//
//   Validator,PT_VERSION,2.11.0
//   GemmTunableOp_BFloat16_TN,tn_1024_128_1024_ld_1024_1024_1024,Default,0.00908864[,extra...]
//
// Contract of parse_results_csv:
// - `Validator,KEY,VALUE` lines become the table's environment, in file order; they may also
//   come after entries (files concatenated by hand). A key given twice with different values
//   is a bad line (the first value stays).
// - Other lines need op_sig,params_sig,solution,time_ms with a finite, non-negative time and a
//   non-empty solution; otherwise they are bad lines (file, line, text, reason), and the good
//   lines are still used.
// - A well-formed line whose signatures gemmtune cannot parse is KEPT as-is with a warning:
//   PyTorch may add kinds this version does not know, and they must survive our round trips.
// - A second entry for the same signatures is ignored (the first wins, as when PyTorch reads the
//   file: its ReadFile emplaces each line into a map) and is reported as a warning.
// - The original spelling of every time is remembered (ResultsTable::time_texts), so
//   format_results_csv(parse_results_csv(f)) == f for every file PyTorch wrote.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "db/diagnostics.hpp"
#include "db/results_table.hpp"

namespace gemmtune {

ResultsTable parse_results_csv(std::string_view content, std::string_view file,
                               Diagnostics& diagnostics);

// Reads a file; throws InputError if it cannot be read at all.
ResultsTable read_results_csv(const std::filesystem::path& path, Diagnostics& diagnostics);

// "Validator,KEY,VALUE\n" for every key, in order.
std::string format_validator_lines(const Environment& environment);
// "op,params,solution,time[,extra...]\n"
std::string format_result_line(const ResultEntry& entry, std::string_view time_text);
// Validators first, then the entries, in order.
std::string format_results_csv(const ResultsTable& table);

// Writes format_results_csv atomically.
void write_results_csv(const std::filesystem::path& path, const ResultsTable& table);

}  // namespace gemmtune
