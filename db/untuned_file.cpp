#include "db/untuned_file.hpp"

#include <glob.h>

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/csv_fields.hpp"
#include "db/text_lines.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kValidatorPrefix = "Validator,";

}  // namespace

std::vector<UntunedEntry> parse_untuned(std::string_view content, std::string_view file,
                                        Diagnostics& diagnostics) {
  std::vector<UntunedEntry> entries;
  for (const TextLine& line : split_lines(content)) {
    auto bad = [&](std::string message) {
      if (line.unterminated)
        message = "truncated last line (no newline at end of file): " + message;
      diagnostics.error(file, line.number, line.text, std::move(message));
    };
    if (line.text.substr(0, kValidatorPrefix.size()) == kValidatorPrefix) {
      // A results file given where an untuned one was expected: its entries are still GEMMs to
      // tune, but its validators mean nothing here.
      diagnostics.warning(file, line.number, line.text,
                          "Validator line ignored (untuned files have no validators)");
      continue;
    }
    const auto fields = split_fields(line.text);
    if (fields.size() < 2) {
      bad(fmt::format("expected at least 2 fields (op_signature,params_signature), got {}",
                      fields.size()));
      continue;
    }
    try {
      UntunedEntry entry;
      entry.problem = parse_problem(fields[0], fields[1]);
      // In the form PyTorch writes and looks up, whatever form the line had ("nn_032_…", "NT_…"
      // parse alike): resume and the output compare signatures as text.
      entry.op_signature = entry.problem.op_signature();
      entry.params_signature = entry.problem.params_signature();
      entry.extra.assign(fields.begin() + 2, fields.end());
      entry.file = std::string(file);
      entry.line = line.number;
      entries.push_back(std::move(entry));
    } catch (const InputError& e) {
      bad(e.what());
    }
  }
  return entries;
}

std::vector<UntunedEntry> read_untuned_file(const std::filesystem::path& path,
                                            Diagnostics& diagnostics) {
  // A file, not any text: the parser reads whatever it is given, line by line.
  const std::string content = read_file(path);
  refuse_non_text_content(content, path.string());
  return parse_untuned(content, path.string(), diagnostics);
}

std::vector<UntunedEntry> read_untuned_files(std::span<const std::filesystem::path> paths,
                                             Diagnostics& diagnostics) {
  std::vector<UntunedEntry> all;
  for (const auto& path : paths) {
    auto entries = read_untuned_file(path, diagnostics);
    all.insert(all.end(), std::make_move_iterator(entries.begin()),
               std::make_move_iterator(entries.end()));
  }
  return all;
}

std::vector<std::filesystem::path> expand_patterns(std::span<const std::string> patterns) {
  std::vector<std::filesystem::path> paths;
  for (const auto& pattern : patterns) {
    // A path that is there is that file, even where its name has a '[', '*' or '?' (x[1].csv)
    // that glob(3) would read as a pattern matching nothing.
    std::error_code exists_error;
    if (std::filesystem::exists(pattern, exists_error)) {
      paths.emplace_back(pattern);
      continue;
    }
    glob_t matches{};
    const int rc = ::glob(pattern.c_str(), GLOB_ERR, nullptr, &matches);
    // globfree in every path, including the throwing ones.
    struct Free {
      glob_t* g;
      ~Free() { ::globfree(g); }
    } free_matches{&matches};
    if (rc == GLOB_NOMATCH) throw InputError(fmt::format("'{}' matches no file", pattern));
    if (rc == GLOB_NOSPACE) GEMMTUNE_THROW("glob('{}') ran out of memory", pattern);
    if (rc != 0) throw InputError(fmt::format("'{}': cannot read a directory it names", pattern));
    // glob(3) sorts its matches already; keep that order. A directory a wildcard matched
    // ("runs/*" over a run's subdirectory) is not an input; one named outright is, and its read
    // says it is a directory.
    const bool wildcard = pattern.find_first_of("*?[") != std::string::npos;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
      std::error_code ec;
      if (wildcard && std::filesystem::is_directory(matches.gl_pathv[i], ec)) continue;
      paths.emplace_back(matches.gl_pathv[i]);
      ++kept;
    }
    if (kept == 0) throw InputError(fmt::format("'{}' matches directories only, no file", pattern));
  }
  return paths;
}

std::vector<UntunedEntry> read_untuned_patterns(std::span<const std::string> patterns,
                                                Diagnostics& diagnostics) {
  const auto paths = expand_patterns(patterns);
  return read_untuned_files(paths, diagnostics);
}

std::size_t dedupe_untuned(std::vector<UntunedEntry>& entries) {
  std::unordered_set<Problem, ProblemHash> seen;
  const auto before = entries.size();
  std::erase_if(entries, [&](const UntunedEntry& e) { return !seen.insert(e.problem).second; });
  return before - entries.size();
}

std::string format_untuned(std::span<const UntunedEntry> entries) {
  std::string out;
  for (const auto& e : entries) {
    out += e.op_signature;
    out += ',';
    out += e.params_signature;
    for (const auto& field : e.extra) {
      out += ',';
      out += field;
    }
    out += '\n';
  }
  return out;
}

void write_untuned_file(const std::filesystem::path& path, std::span<const UntunedEntry> entries) {
  write_file_atomically(path, format_untuned(entries));
}

}  // namespace gemmtune
