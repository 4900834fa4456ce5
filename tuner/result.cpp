#include "tuner/result.hpp"

#include <fmt/format.h>

#include <array>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

struct DispositionName {
  Disposition value;
  std::string_view name;
};
constexpr std::array kDispositions{
    DispositionName{Disposition::Winner, "winner"},
    DispositionName{Disposition::Slower, "slower"},
    DispositionName{Disposition::Unsupported, "unsupported"},
    DispositionName{Disposition::Failed, "failed"},
    DispositionName{Disposition::Incorrect, "incorrect"},
    DispositionName{Disposition::ScreenedOut, "screened_out"},
};

}  // namespace

std::string_view to_string(Disposition d) {
  for (const auto& entry : kDispositions) {
    if (entry.value == d) return entry.name;
  }
  GEMMTUNE_THROW("unknown Disposition value {}", static_cast<int>(d));
}

std::optional<Disposition> disposition_from_string(std::string_view name) {
  for (const auto& entry : kDispositions) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

std::string format_candidate_line(const CandidateReport& c) {
  return fmt::format("    {:<12} {:>10.5f} ms  {}{}", to_string(c.disposition), c.stats.median_ms,
                     c.solution, c.reason.empty() ? "" : "  (" + c.reason + ")");
}

}  // namespace gemmtune
