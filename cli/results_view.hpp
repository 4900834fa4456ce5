// Shared presentation of results tables for the db subcommands: loading a store with its
// diagnostics reported, and the table of entries.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "db/diagnostics.hpp"
#include "db/results_table.hpp"

namespace gemmtune::cli {

struct LoadedStore {
  std::filesystem::path path;
  std::string kind;  // "csv" / "sqlite"
  std::vector<ResultsTable> tables;
  Diagnostics diagnostics;
};

// Opens and loads a store; bad lines are collected (or thrown when strict) and printed to stderr.
LoadedStore load_store(const std::filesystem::path& path, bool strict);

// "  PT_VERSION = 2.11.0" per validator; a value that a list would not show as one is quoted
// (quote_validator_value), and one PyTorch's reader would read otherwise (a comma, empty) is
// followed by what it reads.
std::string format_validators(const Environment& environment);
// The entries as an aligned table with TFLOPS where the signature parses.
std::string format_entries(const ResultsTable& table);

}  // namespace gemmtune::cli
