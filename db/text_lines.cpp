#include "db/text_lines.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tuner/error.hpp"

namespace gemmtune {

std::vector<TextLine> split_lines(std::string_view content) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  std::vector<TextLine> lines;
  int number = 0;
  while (!content.empty()) {
    ++number;
    const auto end = content.find('\n');
    const bool terminated = end != std::string_view::npos;
    std::string_view text = content.substr(0, terminated ? end : content.size());
    content.remove_prefix(terminated ? end + 1 : content.size());
    // Every line, not only the first: `cat a.csv b.csv` puts b's BOM at the start of a line.
    // Stripping them all also keeps writers from ever producing a line that starts with one,
    // which the next reader would strip (found by fuzz/results_csv_fuzzer).
    while (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
    // '\r' counts as trailing whitespace, which is how CRLF (and a stray CR) is accepted.
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
      text.remove_suffix(1);
    }
    if (text.empty()) continue;
    lines.push_back(TextLine{number, text, !terminated});
  }
  return lines;
}

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: read failed", path.string()));
  return std::move(buffer).str();
}

bool is_sqlite_database(std::string_view content) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);  // a database's first bytes
  return content.starts_with(kMagic);
}

void refuse_non_text_content(std::string_view content, std::string_view file) {
  if (is_sqlite_database(content)) {
    throw InputError(fmt::format(
        "{}: a SQLite database, not a CSV file; give it a .db (or .sqlite) name to read it", file));
  }
  // UTF-16 (what Windows PowerShell's `>` and some spreadsheet exports write): read as bytes,
  // every line would be a bad line full of NULs. Told by its byte-order mark, or without one by
  // its first characters: ASCII text in UTF-16 has a NUL in every other byte. NULs elsewhere (a
  // tail of zeros that a crash left after an append) stay bad lines of an otherwise good file.
  const char* encoding = nullptr;
  if (content.starts_with("\xFF\xFE")) {
    encoding = "UTF-16LE";
  } else if (content.starts_with("\xFE\xFF")) {
    encoding = "UTF-16BE";
  } else if (content.size() >= 8) {
    const auto nul_every_other_byte = [&](std::size_t first) {
      for (std::size_t i = first; i < 8; i += 2) {
        if (content[i] != '\0' || content[i ^ 1] == '\0') return false;
      }
      return true;
    };
    if (nul_every_other_byte(1)) encoding = "UTF-16LE";
    if (nul_every_other_byte(0)) encoding = "UTF-16BE";
  }
  if (encoding != nullptr) {
    throw InputError(fmt::format(
        "{}: {} text, not UTF-8; convert it first (iconv -f {} -t UTF-8 {} > converted.csv)", file,
        encoding, encoding, file));
  }
}

}  // namespace gemmtune
