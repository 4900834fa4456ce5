// Fuzzes the results-CSV parser: no input may crash it, and what it accepts must round trip —
// formatting the table and parsing it again gives the same environment and entries without
// errors, and formatting that gives the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "db/csv_results.hpp"
#include "tuner/error.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gemmtune;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  Diagnostics diagnostics;
  const ResultsTable table = parse_results_csv(text, "fuzz.csv", diagnostics);
  for (const auto& e : table.entries) check(e.time_ms >= 0);

  const std::string written = format_results_csv(table);
  Diagnostics again_diagnostics;
  const ResultsTable again = parse_results_csv(written, "again.csv", again_diagnostics);
  check(again_diagnostics.error_count() == 0);
  check(again.environment.entries() == table.environment.entries());
  check(again.entries == table.entries);
  check(format_results_csv(again) == written);

  Diagnostics strict(/*strict=*/true);
  try {
    parse_results_csv(text, "fuzz.csv", strict);
    check(diagnostics.error_count() == 0);
  } catch (const InputError&) {
    check(diagnostics.error_count() > 0);
  }
  return 0;
}
