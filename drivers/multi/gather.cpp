#include "drivers/multi/gather.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "db/merge.hpp"
#include "db/results_store.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// What the gathered file or a copy at `path` becomes: the results gathered so far, then what it
// holds (`current`, as read under its lock), the faster time winning. Nullopt, with the reason in
// `left_because`, for a file that replacing would lose something from: lines the reader skipped,
// another environment's results.
std::optional<ResultsTable> gathered_into(const ResultsTable& gathered,
                                          const std::filesystem::path& path,
                                          std::vector<ResultsTable> current,
                                          const Diagnostics& read, std::string& left_because) {
  if (read.error_count() > 0) {
    left_because = read.summary();
    return std::nullopt;
  }
  std::vector<MergeSource> sources{{"this run", gathered}};
  for (auto& table : current) {
    if (!holds_nothing(table, read)) sources.push_back({path.string(), std::move(table)});
  }
  MergeResult merged = merge_tables(sources);
  if (!merged.refused.empty()) {
    left_because = "it was measured in another environment";
    return std::nullopt;
  }
  return std::move(merged.table);
}

}  // namespace

std::set<int> copy_ordinals(const OutputNames& names, const std::vector<int>& run_devices) {
  // One for every device of this run and every device with a file.
  std::set<int> copies(run_devices.begin(), run_devices.end());
  for (const auto& [ordinal, path] : names.existing_per_device()) copies.insert(ordinal);
  copies.erase(0);  // device 0's copy is the gathered file
  return copies;
}

GatherReport gather_device_files(const OutputNames& names, const Environment& environment,
                                 const std::vector<int>& run_devices) {
  GatherReport report;
  std::vector<MergeSource> sources;
  sources.push_back({"this run", ResultsTable{environment, {}, {}}});
  const auto add = [&](const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return;
    Diagnostics diagnostics;
    for (auto& table : open_results_store(path)->load(diagnostics)) {
      if (holds_nothing(table, diagnostics)) continue;  // blank: no environment, nothing to lose
      sources.push_back({path.string(), std::move(table)});
    }
    if (diagnostics.error_count() > 0) {
      report.notes.push_back(fmt::format("{}: {}", path.string(), diagnostics.summary()));
    }
  };
  add(names.gathered());
  const auto devices = names.existing_per_device();
  for (const auto& [ordinal, path] : devices) add(path);
  if (auto single = names.existing_single_device()) add(*single);  // a one-device run's -o
  // An existing copy is a source too: a process that loads it may have appended its own tunings.
  const std::set<int> copies = copy_ordinals(names, run_devices);
  for (const int ordinal : copies) add(names.copy(ordinal));

  MergeResult merged = merge_tables(sources);
  for (const auto& refused : merged.refused) {
    report.notes.push_back(fmt::format("not gathered: {}", refused.describe("this run")));
  }
  report.entries = merged.table.entries.size();
  if (sources.size() == 1) return report;  // nothing on disk: nothing to gather

  ResultsTable gathered = std::move(merged.table);
  const auto write = [&](const std::filesystem::path& path) {
    // The file is read again and replaced in one update (under its append lock), so that what a
    // process appends to it meanwhile is gathered into it rather than lost with the file it
    // replaces, and into the files written after it.
    std::string left_because;
    std::optional<ResultsTable> next;
    Diagnostics diagnostics;
    try {
      open_results_store(path)->update(
          diagnostics, [&](std::vector<ResultsTable> current, const Diagnostics& read) {
            next = gathered_into(gathered, path, std::move(current), read, left_because);
            return next;
          });
    } catch (const InputError& e) {
      // Checked before the tuning, but a disk may fill up meanwhile: the run's results are in
      // the per-device files, and the summary still says what was tuned.
      report.notes.push_back(fmt::format(
          "{}: not written with the gathered results ({}); they are in the per-device files: fix "
          "it and run again to gather",
          path.string(), e.what()));
      report.left.push_back(path.string());
      return;
    }
    if (!next) {
      report.notes.push_back(fmt::format(
          "{}: left as it is, not rewritten with the gathered results, so that nothing in it is "
          "lost ({}); fix or move it and run again to gather into it",
          path.string(), left_because));
      report.left.push_back(path.string());
      return;
    }
    gathered = std::move(*next);
    report.written.push_back(path.string());
  };
  write(names.gathered());
  for (const int ordinal : copies) write(names.copy(ordinal));
  report.entries = gathered.entries.size();
  return report;
}

}  // namespace gemmtune
