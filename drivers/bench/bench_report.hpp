// BenchReport: everything one `gemmtune bench` run reports — the run's context, its rows, and
// any number of extra named sections — and its three renderings: the terminal table's cells, a
// CSV file and a JSONL file.
//
// CSV: a header row, then one row per case and solution kind (default, tuned), in workload order.
// Units are in the column names (_us, _mb, _gb_s, _percent); numbers have 6 significant digits;
// a figure that does not exist (a utilisation without a known peak, the metrics of a failed row)
// is an empty cell. Nothing else is in the file, so any CSV reader takes it as it is.
//
// JSONL: one JSON object per line. The first is the run record ("record": "run": command,
// times, device, versions, peaks and their source, units, measurement conditions, tuning
// options, notes, and the extra sections); each further line is a result record
// ("record": "result") with the CSV's fields, numbers unrounded, null where the CSV is empty,
// and the case's micro_perf arguments.
//
// Extra sections are how later additions (the effective configuration, a GPU monitor summary)
// join every report without changing its layout: each has a title, a text for the terminal
// (printed after the table) and optional structured data; the JSONL run record lists them under
// "sections", and the CSV's sidecar file holds the same run record (`write_report_files`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "drivers/bench/bench_metrics.hpp"
#include "drivers/bench/bench_result.hpp"

namespace gemmtune::bench {

struct ReportSection {
  std::string title;            // "configuration", "gpu monitor"
  std::string text;             // for the terminal, printed as it is
  nlohmann::ordered_json data;  // for the files; null when the text says it all
};

struct BenchRunInfo {
  std::string command_line;
  std::string started_at, ended_at;  // UTC, "2026-11-21T11:12:10Z"; ended_at empty while running
  std::string workload;              // the file
  std::string workload_form;         // "cases", "input_shape_list", "input_shape_groups"
  std::size_t cases = 0;             // after expansion
  std::string backend;               // "cpu", "cuda"
  std::string device;                // "cuda device 0: NVIDIA H200"
  std::vector<std::pair<std::string, std::string>> versions;  // validators of this environment
  DevicePeaks peaks;
  std::vector<std::string> measurement;  // how the cases are measured, one line each
  std::string tuning;                    // "key=value" lines (describe_tuning)
  std::string results_file;              // where tuned solutions were looked up; may be empty
};

struct BenchReport {
  BenchRunInfo run;
  BenchResult result;
  std::vector<ReportSection> extra_sections;
};

// The terminal table: header, alignment (true = right) and each row's cells.
std::vector<std::string> table_header();
std::vector<bool> table_right_aligned();
std::vector<std::string> table_cells(const BenchRow& row);
// What precedes the table: device, peaks and units, one line each.
std::string format_preamble(const BenchReport& report);
// What follows it: notes, then each extra section under its title.
std::string format_sections(const BenchReport& report);

std::vector<std::string> csv_columns();
std::string to_csv(const BenchReport& report);

nlohmann::ordered_json run_record(const BenchReport& report);
nlohmann::ordered_json result_record(const BenchRow& row);
std::string to_jsonl(const BenchReport& report);

// Where the CSV's run record goes: "out.csv" -> "out.meta.json".
std::filesystem::path csv_sidecar_path(const std::filesystem::path& csv);

// Writes whichever of the files is named (empty: not written), each atomically; the CSV with its
// sidecar.
void write_report_files(const BenchReport& report, const std::filesystem::path& csv,
                        const std::filesystem::path& jsonl);

}  // namespace gemmtune::bench
