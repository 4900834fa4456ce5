#include "drivers/multi/gather.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "db/merge.hpp"
#include "db/results_store.hpp"

namespace gemmtune {

GatherReport gather_device_files(const OutputNames& names, const Environment& environment,
                                 const std::vector<int>& run_devices) {
  GatherReport report;
  std::vector<MergeSource> sources;
  sources.push_back({"this run", ResultsTable{environment, {}, {}}});
  const auto add = [&](const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return;
    Diagnostics diagnostics;
    for (auto& table : open_results_store(path)->load(diagnostics)) {
      sources.push_back({path.string(), std::move(table)});
    }
    if (diagnostics.error_count() > 0) {
      report.notes.push_back(fmt::format("{}: {}", path.string(), diagnostics.summary()));
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
  }
  report.entries = merged.table.entries.size();
  if (sources.size() == 1) return report;  // nothing on disk: nothing to gather

  open_results_store(names.gathered())->write(merged.table);
  report.written.push_back(names.gathered().string());
  for (const int ordinal : copies) {
    open_results_store(names.copy(ordinal))->write(merged.table);
    report.written.push_back(names.copy(ordinal).string());
  }
  return report;
}

}  // namespace gemmtune
