// Fuzzes the untuned-file parser: no input may crash it, and what it accepts must be
// self-consistent — each problem prints signatures that parse back to the same problem, and
// writing the entries and reading them back gives the same entries without diagnostics.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "db/untuned_file.hpp"
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
  auto entries = parse_untuned(text, "fuzz.csv", diagnostics);
  for (const auto& e : entries) {
    check(parse_problem(e.problem.op_signature(), e.problem.params_signature()) == e.problem);
    check(e.line >= 1);
  }

  Diagnostics again_diagnostics;
  const auto again = parse_untuned(format_untuned(entries), "again.csv", again_diagnostics);
  check(again_diagnostics.error_count() == 0);
  check(again.size() == entries.size());
  for (std::size_t i = 0; i < again.size(); ++i) {
    check(again[i].problem == entries[i].problem);
    check(again[i].extra == entries[i].extra);
  }

  dedupe_untuned(entries);

  Diagnostics strict(/*strict=*/true);
  try {
    parse_untuned(text, "fuzz.csv", strict);
    check(diagnostics.error_count() == 0);
  } catch (const InputError&) {
    check(diagnostics.error_count() > 0);
  }
  return 0;
}
