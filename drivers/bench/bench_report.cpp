#include "drivers/bench/bench_report.hpp"

#include <fmt/format.h>

#include <sstream>

#include "db/atomic_file.hpp"

namespace gemmtune::bench {
namespace {

using Json = nlohmann::ordered_json;

Json number_or_null(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json text_or_null(const std::string& s) {
  return s.empty() ? Json(nullptr) : Json(s);
}

std::string csv_cell(const Json& v) {
  if (v.is_null()) return {};
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_number()) return v.dump();
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// The fields of a result record that are not CSV columns.
bool json_only(const std::string& key) {
  return key == "record" || key == "conditions" || key == "arguments";
}

std::string fixed(const std::optional<double>& v, int decimals, std::string_view suffix = "") {
  if (!v) return "n/a";
  return fmt::format("{:.{}f}{}", *v, decimals, suffix);
}

Json units() {
  Json u = Json::object();
  u["avg_latency_us"] = "mean of the per-iteration samples, microseconds";
  u["median_latency_us"] = "median of the per-iteration samples, microseconds";
  u["tflops"] = "2*M*N*K / avg latency (s) / 1e12";
  u["memory_mb"] = "bytes of A, B and C (M*K, K*N, M*N elements of their types) / 1e6";
  u["algo_bandwidth_gb_s"] = "memory bytes / avg latency (s) / 1e9";
  u["bandwidth_utilization_percent"] = "algo_bandwidth_gb_s / peak memory bandwidth * 100";
  u["flops_utilization_percent"] = "tflops / peak dense TFLOPS of the dtype * 100";
  u["speedup_vs_default"] = "Default's avg latency / this row's avg latency";
  return u;
}

}  // namespace

std::vector<std::string> table_header() {
  return {"case", "shape MxKxN", "dtype",   "row",        "avg us",     "med us",  "TFLOPS",
          "MB",   "GB/s",        "BW util", "FLOPS util", "vs Default", "solution"};
}

std::vector<bool> table_right_aligned() {
  return {true, true, false, false, true, true, true, true, true, true, true, true, false};
}

std::vector<std::string> table_cells(const BenchRow& row) {
  const BenchCase& c = row.bench_case;
  std::vector<std::string> cells{std::to_string(row.case_index), c.shape_text(), c.dtype,
                                 std::string(to_string(row.kind))};
  if (!row.metrics) {
    for (int i = 0; i < 8; ++i) cells.emplace_back("-");
    cells.push_back(fmt::format("{}: {}", to_string(row.status), row.error));
    return cells;
  }
  const BenchMetrics& m = *row.metrics;
  cells.push_back(fmt::format("{:.2f}", m.avg_latency_us));
  cells.push_back(fmt::format("{:.2f}", m.median_latency_us));
  cells.push_back(fmt::format("{:.3f}", m.tflops));
  cells.push_back(fmt::format("{:.3f}", m.memory_mb));
  cells.push_back(fmt::format("{:.2f}", m.algo_bandwidth_gb_s));
  cells.push_back(fixed(m.bandwidth_utilization_percent, 1, "%"));
  cells.push_back(fixed(m.flops_utilization_percent, 1, "%"));
  cells.push_back(row.speedup_vs_default ? fmt::format("{:.2f}x", *row.speedup_vs_default) : "");
  std::string solution = row.solution;
  if (row.source == kSourceResults || row.source == kSourceFallback) {
    solution += fmt::format(" ({})", row.source);
  }
  cells.push_back(std::move(solution));
  return cells;
}

std::string format_preamble(const BenchReport& r) {
  const BenchRunInfo& run = r.run;
  std::string out = fmt::format("gemmtune bench: {} ({} form, {} case(s)) on {}\n", run.workload,
                                run.workload_form, run.cases, run.device);
  const DevicePeaks& p = run.peaks;
  if (!p.memory_bandwidth_gb_s && p.dense_tflops_by_dtype.empty()) {
    out += fmt::format("Peaks: none known ({}); utilisation is n/a\n", p.source);
  } else {
    std::string tflops;
    for (const auto& [dtype, value] : p.dense_tflops_by_dtype) {
      tflops += fmt::format("{}{} {}", tflops.empty() ? "" : ", ", dtype, value);
    }
    out += fmt::format(
        "Peaks ({}): memory bandwidth {} GB/s; dense TFLOPS {}\n", p.source,
        p.memory_bandwidth_gb_s ? fmt::format("{}", *p.memory_bandwidth_gb_s) : std::string("n/a"),
        tflops.empty() ? std::string("n/a") : tflops);
  }
  out += fmt::format("Units: {}\n", kUnitsNote);
  return out;
}

std::string format_sections(const BenchReport& r) {
  std::string out;
  if (!r.result.notes.empty()) {
    out += "Notes:\n";
    for (const auto& n : r.result.notes) out += fmt::format("  - {}\n", n);
  }
  for (const auto& s : r.extra_sections) {
    out += fmt::format("\n{}:\n{}", s.title, s.text);
    if (!s.text.empty() && s.text.back() != '\n') out += "\n";
  }
  return out;
}

Json result_record(const BenchRow& row) {
  const BenchCase& c = row.bench_case;
  const BenchMetrics* m = row.metrics ? &*row.metrics : nullptr;
  auto metric = [&](double BenchMetrics::*field) { return m ? Json(m->*field) : Json(nullptr); };
  Json j = Json::object();
  j["record"] = "result";
  j["case"] = row.case_index;
  j["origin"] = c.origin;
  j["op"] = c.op;
  j["M"] = c.m;
  j["K"] = c.k;
  j["N"] = c.n;
  j["dtype"] = c.dtype;
  j["gemm_dtype"] = text_or_null(row.gemm_dtype);
  j["op_signature"] = text_or_null(row.op_signature);
  j["params_signature"] = text_or_null(row.params_signature);
  j["kind"] = std::string(to_string(row.kind));
  j["solution"] = text_or_null(row.solution);
  j["source"] = row.source;
  j["status"] = std::string(to_string(row.status));
  j["iterations"] = c.iterations;
  j["avg_latency_us"] = metric(&BenchMetrics::avg_latency_us);
  j["median_latency_us"] = metric(&BenchMetrics::median_latency_us);
  j["min_latency_us"] = metric(&BenchMetrics::min_latency_us);
  j["max_latency_us"] = metric(&BenchMetrics::max_latency_us);
  j["stddev_latency_us"] = metric(&BenchMetrics::stddev_latency_us);
  j["tflops"] = metric(&BenchMetrics::tflops);
  j["memory_mb"] = metric(&BenchMetrics::memory_mb);
  j["algo_bandwidth_gb_s"] = metric(&BenchMetrics::algo_bandwidth_gb_s);
  j["bandwidth_utilization_percent"] =
      m ? number_or_null(m->bandwidth_utilization_percent) : Json(nullptr);
  j["flops_utilization_percent"] = m ? number_or_null(m->flops_utilization_percent) : Json(nullptr);
  j["speedup_vs_default"] = number_or_null(row.speedup_vs_default);
  j["error"] = text_or_null(row.error);
  j["conditions"] = text_or_null(row.conditions);
  j["arguments"] = c.arguments.is_null() ? Json::object() : c.arguments;
  return j;
}

std::vector<std::string> csv_columns() {
  std::vector<std::string> out;
  const Json record = result_record(BenchRow{});
  for (const auto& [key, value] : record.items()) {
    if (!json_only(key)) out.push_back(key);
  }
  return out;
}

std::string to_csv(const BenchReport& report) {
  const std::vector<std::string> columns = csv_columns();
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ',';
    out += columns[i];
  }
  out += "\n";
  for (const auto& row : report.result.rows) {
    const Json record = result_record(row);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ',';
      out += csv_cell(record[columns[i]]);
    }
    out += "\n";
  }
  return out;
}

Json run_record(const BenchReport& report) {
  const BenchRunInfo& run = report.run;
  Json j = Json::object();
  j["record"] = "run";
  j["tool"] = "gemmtune bench";
  j["command"] = run.command_line;
  j["started_at"] = run.started_at;
  j["ended_at"] = text_or_null(run.ended_at);
  j["workload"] = run.workload;
  j["workload_form"] = run.workload_form;
  j["cases"] = run.cases;
  j["cases_run"] = report.result.cases_run;
  j["interrupted"] = report.result.interrupted;
  j["complete"] = report.result.complete() && report.result.cases_run == run.cases;
  j["backend"] = run.backend;
  j["device"] = run.device;
  Json versions = Json::object();
  for (const auto& [key, value] : run.versions) versions[key] = value;
  j["versions"] = versions;
  Json peaks = Json::object();
  peaks["source"] = run.peaks.source;
  peaks["memory_bandwidth_gb_s"] = number_or_null(run.peaks.memory_bandwidth_gb_s);
  Json tflops = Json::object();
  for (const auto& [dtype, value] : run.peaks.dense_tflops_by_dtype) tflops[dtype] = value;
  peaks["dense_tflops"] = tflops;
  j["peaks"] = peaks;
  j["units"] = units();
  j["measurement"] = run.measurement;
  Json tuning = Json::object();
  std::istringstream lines(run.tuning);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) tuning[line.substr(0, eq)] = line.substr(eq + 1);
  }
  j["tuning"] = tuning;
  j["results_file"] = text_or_null(run.results_file);
  j["notes"] = report.result.notes;
  Json sections = Json::array();
  for (const auto& s : report.extra_sections) {
    Json section = Json::object();
    section["title"] = s.title;
    section["text"] = s.text;
    section["data"] = s.data;
    sections.push_back(std::move(section));
  }
  j["sections"] = sections;
  return j;
}

std::string to_jsonl(const BenchReport& report) {
  std::string out = run_record(report).dump() + "\n";
  for (const auto& row : report.result.rows) out += result_record(row).dump() + "\n";
  return out;
}

std::filesystem::path csv_sidecar_path(const std::filesystem::path& csv) {
  std::filesystem::path out = csv;
  if (out.extension() == ".csv") out.replace_extension();
  out += ".meta.json";
  return out;
}

void write_report_files(const BenchReport& report, const std::filesystem::path& csv,
                        const std::filesystem::path& jsonl) {
  for (const auto& path : {csv, jsonl}) {
    if (!path.empty() && path.has_parent_path()) {
      std::filesystem::create_directories(path.parent_path());
    }
  }
  if (!csv.empty()) {
    write_file_atomically(csv, to_csv(report));
    write_file_atomically(csv_sidecar_path(csv), run_record(report).dump(2) + "\n");
  }
  if (!jsonl.empty()) write_file_atomically(jsonl, to_jsonl(report));
}

}  // namespace gemmtune::bench
