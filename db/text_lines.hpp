// TextLines: a file as the numbered logical lines our readers parse.
//
// Contract: accepts what editors and other platforms produce — a UTF-8 BOM (at the start of the
// file or of any line, as concatenated files have them), CRLF endings,
// trailing spaces and tabs, blank lines — without changing line numbers, so every message can
// point at the line a person sees in an editor. A last line with no newline after it is flagged:
// a writer killed mid-line leaves exactly that, and a reader must say "truncated last line"
// rather than silently dropping or misreading it. A last line without newline that parses is
// fine (hand-written files often lack the final newline).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

struct TextLine {
  int number = 0;             // 1-based, counting blank lines too
  std::string_view text;      // without BOM, line ending and trailing spaces/tabs
  bool unterminated = false;  // the file's last line, not followed by a newline
};

// Splits `content` into its non-blank lines. The views point into `content`.
std::vector<TextLine> split_lines(std::string_view content);

// The whole file as bytes; throws InputError naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Whether `content` starts as a SQLite database does (its 16-byte header string).
bool is_sqlite_database(std::string_view content);

// Throws InputError when `content` is not UTF-8 text: a SQLite database (a .db copied to a .csv
// name), or UTF-16 text (a byte-order mark, or a NUL in every other one of its first 8 bytes).
// Read as text, it would be reported as a hundred bad lines of binary rather than as what it is.
void refuse_non_text_content(std::string_view content, std::string_view file);

}  // namespace gemmtune
