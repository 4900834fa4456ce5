#include "db/csv_store.hpp"

#include <optional>

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/csv_results.hpp"
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

  void write(const ResultsTable& table) override {
    write_results_csv(path_, table);
    checked_environment_ = table.environment;
  }

  void append(const Environment& environment, const ResultEntry& entry,
              std::span<const CandidateReport> /*candidates: CSV has no place for them*/) override {
    std::string line = format_result_line(entry, format_time_ms(entry.time_ms));
    if (!checked_environment_ || !(*checked_environment_ == environment)) {
      // A new file gets its header through create_file_atomically, so that of two processes
      // starting together one writes it and the other finds it and checks it below. A file that
      // holds nothing (blank, a BOM alone, touched: holds_nothing, the rule the tuning run's
      // check before it starts applies too) is simply replaced.
      const std::string header = format_validator_lines(environment);
      const bool created = create_file_atomically(path_, header);
      if (!created) {
        const std::string content = read_file(path_);
        Diagnostics read;  // bad lines are reported by readers; here they only forbid replacing
        const ResultsTable table = parse_results_csv(content, path_.string(), read);
        const Environment& existing = table.environment;
        if (holds_nothing(table, read)) {
          write_file_atomically(path_, header);
        } else if (!(existing == environment)) {
          throw InputError(fmt::format(
              "{}: refusing to append: the file was measured in another environment, and one "
              "results file never mixes environments ({}). Write to another file, or convert it "
              "to SQLite, which keeps one table per environment.",
              path_.string(),
              compare_environments(existing, environment)
                  .summarize_differences("file", "this run")));
        } else if (!content.empty() && content.back() != '\n') {
          line = fmt::format("\n{}", line);
        }
      }
      checked_environment_ = environment;
    }
    append_durably(path_, line);
  }

  void record_run(const RunRecord& /*run*/) override {}

 private:
  std::filesystem::path path_;
  // The environment this object last verified the file against; saves re-reading per append.
  std::optional<Environment> checked_environment_;
};

}  // namespace

std::unique_ptr<ResultsStore> make_csv_store(const std::filesystem::path& path) {
  return std::make_unique<CsvStore>(path);
}

}  // namespace gemmtune
