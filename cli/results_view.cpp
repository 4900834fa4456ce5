#include "cli/results_view.hpp"

#include <fmt/format.h>

#include "cli/text_table.hpp"
#include "db/results_store.hpp"
#include "tuner/error.hpp"
#include "tuner/problem.hpp"
#include "validator/compare.hpp"
#include "validator/pytorch_validators.hpp"

namespace gemmtune::cli {

LoadedStore load_store(const std::filesystem::path& path, bool strict) {
  if (!std::filesystem::exists(path)) {
    throw InputError(fmt::format("{}: no such file", path.string()));
  }
  LoadedStore loaded{path, {}, {}, Diagnostics(strict)};
  auto store = open_results_store(path);
  loaded.kind = std::string(store->kind());
  loaded.tables = store->load(loaded.diagnostics);
  if (!loaded.diagnostics.empty()) fmt::print(stderr, "{}", loaded.diagnostics.format_all());
  return loaded;
}

std::string format_validators(const Environment& environment) {
  if (environment.empty()) return "  (no validators)\n";
  std::string out;
  for (const auto& [key, value] : environment.entries()) {
    // The value is all of it (a CSV line's rest, commas included), as gemmtune compares and
    // writes it; where PyTorch's reader would take less, the note says what it takes.
    const auto pytorch_reads = why_pytorch_reads_otherwise(value);
    out += fmt::format("  {} = {}{}\n", key, quote_validator_value(value),
                       pytorch_reads ? fmt::format(" ({})", *pytorch_reads) : std::string());
  }
  return out;
}

namespace {

// "?" for a kind this version cannot parse (the line is kept as it is), "-" without a time.
std::string format_tflops(const ResultEntry& e) {
  try {
    const Problem p = parse_problem(e.op_signature, e.params_signature);
    if (e.time_ms <= 0) return std::string(1, '-');
    return fmt::format("{:.3f}", p.flops() / (e.time_ms * 1e-3) / 1e12);
  } catch (const InputError&) {
    return std::string(1, '?');
  }
}

}  // namespace

std::string format_entries(const ResultsTable& table) {
  TextTable t;
  t.column("#", TextTable::Align::Right)
      .column("op_signature")
      .column("params_signature")
      .column("time_ms", TextTable::Align::Right)
      .column("TFLOPS", TextTable::Align::Right)
      .column("solution");
  int index = 0;
  for (const auto& e : table.entries) {
    t.add_row({fmt::format("{}", ++index), e.op_signature, e.params_signature,
               table.time_text_of(e), format_tflops(e), e.solution});
  }
  return t.render();
}

}  // namespace gemmtune::cli
