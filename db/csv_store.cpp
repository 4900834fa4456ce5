#include "db/csv_store.hpp"

#include <optional>

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/csv_results.hpp"
#include "db/held_file.hpp"
#include "db/text_lines.hpp"
#include "tuner/error.hpp"
#include "validator/compare.hpp"

namespace gemmtune {
namespace {

class CsvStore final : public ResultsStore {
 public:
  explicit CsvStore(std::filesystem::path path) : path_(std::move(path)) {}

  const std::filesystem::path& path() const override { return path_; }
  std::string_view kind() const override { return "csv"; }

  std::vector<ResultsTable> load(Diagnostics& diagnostics) override {
    std::vector<ResultsTable> tables;
    tables.push_back(read_results_csv(path_, diagnostics));
    return tables;
  }

  bool holds(const Environment& environment, std::string_view op_signature,
             std::string_view params_signature) override {
    // Most problems asked about are not there: a search of the text says so without parsing a
    // line. A line that starts with the problem is read the whole way (a bad line holds nothing).
    std::string content;
    try {
      content = read_file(path_);
    } catch (const InputError&) {
      return false;  // no file (yet)
    }
    const std::string start = fmt::format("{},{},", op_signature, params_signature);
    // A line may begin with a byte-order mark, which the parser skips.
    const std::string bom = "\xEF\xBB\xBF";
    if (!content.starts_with(start) && !content.starts_with(bom + start) &&
        content.find("\n" + start) == std::string::npos &&
        content.find("\n" + bom + start) == std::string::npos) {
      return false;
    }
    return ResultsStore::holds(environment, op_signature, params_signature);
  }

  void write(const ResultsTable& table) override {
    write_results_csv(path_, table);
    checked(table.environment);
  }

  void update(Diagnostics& diagnostics, const Update& produce) override {
    std::optional<Environment> written;
    rewrite_file_atomically(
        path_, [&](std::optional<std::string_view> content) -> std::optional<std::string> {
          std::vector<ResultsTable> current;
          if (content) current.push_back(parse_results_csv(*content, path_.string(), diagnostics));
          const auto table = produce(std::move(current), diagnostics);
          written.reset();
          if (!table) return std::nullopt;
          written = table->environment;
          return format_results_csv(*table);
        });
    if (written) checked(*written);
  }

  void append(const Environment& environment, const ResultEntry& entry,
              std::span<const CandidateReport> /*candidates: CSV has no place for them*/) override {
    const std::string line = format_result_line(entry, format_time_ms(entry.time_ms));
    // The header was checked: append, as long as the path still names the file checked (held
    // open, so that no other file can pass for it). One put in its place meanwhile (`db convert
    // --force`, a `mv`) is checked again below, so that no result goes under another file's
    // validators or into a new file without any.
    if (checked_environment_ && *checked_environment_ == environment && checked_file_ &&
        append_lines_if_same(path_, line, *checked_file_)) {
      return;
    }
    // A new file is created with its header and this line at once (create_file_atomically), so
    // that of two processes starting together one writes it. Otherwise the header is checked —
    // and for a file that holds nothing (blank, a BOM alone, touched: holds_nothing, the rule the
    // tuning run's check before it starts applies too) written — under the append lock, so that
    // no other appender can write a header or a line between what this one read and what it
    // writes.
    const std::string header = format_validator_lines(environment);
    // An existing file is appended to in place: creating one beside it first would fail in a
    // directory that cannot be written, naming a temporary file, where the file itself can be.
    std::error_code ec;
    if (std::filesystem::exists(path_, ec) || !create_file_atomically(path_, header + line)) {
      append_durably(path_, [&](std::string_view content) {
        return plan_append(content, environment, header, line);
      });
    }
    checked(environment);
  }

  void record_run(const RunRecord& /*run*/) override {}

 private:
  // What to write to a file holding `content` (read under the append lock) to add `line`.
  AppendPlan plan_append(std::string_view content, const Environment& environment,
                         const std::string& header, const std::string& line) const {
    Diagnostics read;  // bad lines are reported by readers; here they only forbid replacing
    const ResultsTable table = parse_results_csv(content, path_.string(), read);
    if (holds_nothing(table, read)) return {.append = {}, .replace_with = header + line};
    if (!(table.environment == environment)) {
      throw InputError(fmt::format(
          "{}: refusing to append: the file was measured in another environment, and one "
          "results file never mixes environments ({}). Write to another file, or convert it "
          "to SQLite, which keeps one table per environment.",
          path_.string(),
          compare_environments(table.environment, environment)
              .summarize_differences("file", "this run")));
    }
    // A last line without its newline (a writer killed mid-line) gets one, so that ours stays
    // whole and the broken one is reported on the next read.
    if (!content.empty() && content.back() != '\n')
      return {.append = "\n" + line, .replace_with = std::nullopt};
    return {.append = line, .replace_with = std::nullopt};
  }

  // Remembers the file just verified (or written) as holding `environment`, and holds it open.
  // Opened after the fact: should another writer replace it in between, the file held is the new
  // one and an append to it is unchecked, as it was before the store held files; the window is
  // an open call long.
  void checked(const Environment& environment) {
    checked_environment_ = environment;
    checked_file_ = HeldFile::open(path_);
  }

  std::filesystem::path path_;
  // The environment this object last verified the file against, and that file, held open; saves
  // re-reading per append.
  std::optional<Environment> checked_environment_;
  std::optional<HeldFile> checked_file_;
};

}  // namespace

std::unique_ptr<ResultsStore> make_csv_store(const std::filesystem::path& path) {
  return std::make_unique<CsvStore>(path);
}

}  // namespace gemmtune
