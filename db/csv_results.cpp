#include "db/csv_results.hpp"

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/csv_fields.hpp"
#include "db/text_lines.hpp"
#include "tuner/error.hpp"
#include "tuner/problem.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kValidator = "Validator";

// Joins fields [from, end) back with commas: a validator value is everything after the key.
// PyTorch writes the value unquoted, so a comma in it is the value's own; keeping the whole rest
// of the line reads back what was written (PyTorch's own reader keeps only up to the comma, which
// `db show` says, and `db convert --for-pytorch` refuses such a value).
std::string join_from(const std::vector<std::string_view>& fields, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < fields.size(); ++i) {
    if (i > from) out += ',';
    out += fields[i];
  }
  return out;
}

}  // namespace

ResultsTable parse_results_csv(std::string_view content, std::string_view file,
                               Diagnostics& diagnostics) {
  ResultsTable table;
  for (const TextLine& line : split_lines(content)) {
    auto bad = [&](std::string message) {
      if (line.unterminated)
        message = "truncated last line (no newline at end of file): " + message;
      diagnostics.error(file, line.number, line.text, std::move(message));
    };
    const auto fields = split_fields(line.text);

    if (fields[0] == kValidator) {
      if (fields.size() < 3 || fields[1].empty()) {
        bad("a Validator line needs a key and a value: Validator,KEY,VALUE");
        continue;
      }
      std::string value = join_from(fields, 2);
      if (const auto existing = table.environment.get(fields[1])) {
        if (*existing != value) {
          bad(
              fmt::format("validator {} given again with another value (first '{}', here '{}'); "
                          "the first is kept",
                          fields[1], *existing, value));
        }
        continue;
      }
      table.environment.set(std::string(fields[1]), std::move(value));
      continue;
    }

    if (fields.size() < 4) {
      bad(
          fmt::format("expected at least 4 fields (op_signature,params_signature,solution,"
                      "time_ms), got {}",
                      fields.size()));
      continue;
    }
    if (fields[0].empty() || fields[1].empty()) {
      bad("op_signature and params_signature must not be empty");
      continue;
    }
    if (fields[2].empty()) {
      bad("solution name is empty");
      continue;
    }
    const ParsedTime time = parse_time_ms(fields[3]);
    if (!time.value) {
      bad(time.error);
      continue;
    }
    try {
      (void)parse_problem(fields[0], fields[1]);
    } catch (const InputError& e) {
      // Kept: this may be a kind a newer PyTorch writes; it must survive the round trip.
      diagnostics.warning(file, line.number, line.text,
                          fmt::format("kept as-is, but gemmtune cannot use it: {}", e.what()));
    }

    ResultEntry entry{std::string(fields[0]), std::string(fields[1]), std::string(fields[2]),
                      *time.value, std::vector<std::string>(fields.begin() + 4, fields.end())};
    if (const auto* previous = table.find(entry.op_signature, entry.params_signature)) {
      // PyTorch's ReadFile keeps the first (it emplaces each line into a map): so does gemmtune,
      // so that what it shows, checks, merges and converts is what PyTorch runs.
      diagnostics.warning(file, line.number, line.text,
                          fmt::format("second entry for this problem, ignored: the first ({}, {} "
                                      "ms) is the one PyTorch runs",
                                      previous->solution, table.time_text_of(*previous)));
      continue;
    }
    table.upsert(std::move(entry), std::string(fields[3]));
  }
  return table;
}

ResultsTable read_results_csv(const std::filesystem::path& path, Diagnostics& diagnostics) {
  // A file, not any text: the parser reads whatever it is given, line by line.
  const std::string content = read_file(path);
  refuse_non_text_content(content, path.string());
  return parse_results_csv(content, path.string(), diagnostics);
}

std::string format_validator_lines(const Environment& environment) {
  std::string out;
  for (const auto& [key, value] : environment.entries()) {
    out += fmt::format("{},{},{}\n", kValidator, key, value);
  }
  return out;
}

std::string format_result_line(const ResultEntry& entry, std::string_view time_text) {
  std::string out = fmt::format("{},{},{},{}", entry.op_signature, entry.params_signature,
                                entry.solution, time_text);
  for (const auto& field : entry.extra) {
    out += ',';
    out += field;
  }
  out += '\n';
  return out;
}

std::string format_results_csv(const ResultsTable& table) {
  std::string out = format_validator_lines(table.environment);
  for (const auto& entry : table.entries)
    out += format_result_line(entry, table.time_text_of(entry));
  return out;
}

void write_results_csv(const std::filesystem::path& path, const ResultsTable& table) {
  write_file_atomically(path, format_results_csv(table));
}

}  // namespace gemmtune
