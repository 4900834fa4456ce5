#include "drivers/multi/gather.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "db/merge.hpp"
#include "db/results_store.hpp"

namespace gemmtune {

GatherReport gather_device_files(const OutputNames& names, const Environment& environment,
                                 const std::vector<int>& run_devices) {
  GatherReport report;
  std::vector<MergeSource> sources;
  sources.push_back({"this run", ResultsTable{environment, {}, {}}});
  // Files whose content is not all gathered (lines the reader skipped, another environment's
  // entries), by path, with why: rewriting one of them would lose what it holds.
  std::map<std::string, std::string> not_all_gathered;
  const auto add = [&](const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return;
    Diagnostics diagnostics;
    for (auto& table : open_results_store(path)->load(diagnostics)) {
      if (holds_nothing(table, diagnostics)) continue;  // blank: no environment, nothing to lose
      sources.push_back({path.string(), std::move(table)});
    }
    if (diagnostics.error_count() > 0) {
      report.notes.push_back(fmt::format("{}: {}", path.string(), diagnostics.summary()));
      not_all_gathered.emplace(path.string(), diagnostics.summary());
    }
  };
  add(names.gathered());
  const auto devices = names.existing_per_device();
  for (const auto& [ordinal, path] : devices) add(path);
  // Copies: one for every device of this run and every device with a file. An existing copy is a
  // source too: a process that loads it may have appended its own tunings.
  std::set<int> copies(run_devices.begin(), run_devices.end());
  for (const auto& [ordinal, path] : devices) copies.insert(ordinal);
  copies.erase(0);  // device 0's copy is the gathered file
  for (const int ordinal : copies) add(names.copy(ordinal));

  const MergeResult merged = merge_tables(sources);
  for (const auto& refused : merged.refused) {
    report.notes.push_back(fmt::format("not gathered: {}", refused.describe("this run")));
    not_all_gathered.emplace(refused.name, "it was measured in another environment");
  }
  report.entries = merged.table.entries.size();
  if (sources.size() == 1) return report;  // nothing on disk: nothing to gather

  const auto write = [&](const std::filesystem::path& path) {
    if (const auto kept = not_all_gathered.find(path.string()); kept != not_all_gathered.end()) {
      report.notes.push_back(fmt::format(
          "{}: left as it is, not rewritten with the gathered results, so that nothing in it is "
          "lost ({}); fix or move it and run again to gather into it",
          path.string(), kept->second));
      return;
    }
    open_results_store(path)->write(merged.table);
    report.written.push_back(path.string());
  };
  write(names.gathered());
  for (const int ordinal : copies) write(names.copy(ordinal));
  return report;
}

}  // namespace gemmtune
