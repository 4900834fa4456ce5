// CsvStore: a ResultsStore over one TunableOp results CSV file (one environment).
//
// Appending checks the file's validators once per store object: a file that does not exist or
// holds nothing (holds_nothing: blank, a BOM alone) gets the run's Validator lines first (written
// atomically, so a crash never leaves half a header, and, the check and the write being made under
// the append lock, of several processes starting on one new or empty file exactly one writes it);
// a file measured in another environment is refused with the differences, never mixed. The file
// checked is held open, so that the next append tells for certain whether the path still names it
// (HeldFile). A file whose last line lacks its newline (a writer killed mid-line, another program's
// append) gets one first, so the new line stays whole and a broken one is reported on the next
// read.
#pragma once

#include <filesystem>
#include <memory>

#include "db/results_store.hpp"

namespace gemmtune {

std::unique_ptr<ResultsStore> make_csv_store(const std::filesystem::path& path);

}  // namespace gemmtune
