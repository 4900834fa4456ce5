#include "db/diagnostics.hpp"

#include <fmt/format.h>

#include "tuner/error.hpp"

namespace gemmtune {

std::string format_diagnostic(const Diagnostic& d) {
  const std::string_view kind = d.severity == Severity::Warning ? "warning: " : "";
  std::string out = d.line > 0 ? fmt::format("{}:{}: {}{}", d.file, d.line, kind, d.message)
                               : fmt::format("{}: {}{}", d.file, kind, d.message);
  if (!d.text.empty()) out += fmt::format("\n    {}", d.text);
  return out;
}

void Diagnostics::error(std::string_view file, int line, std::string_view text,
                        std::string message) {
  Diagnostic d{std::string(file), line, std::string(text), std::move(message), Severity::Error};
  if (strict_) throw InputError(format_diagnostic(d));
  all_.push_back(std::move(d));
  ++errors_;
}

void Diagnostics::warning(std::string_view file, int line, std::string_view text,
                          std::string message) {
  all_.push_back(
      Diagnostic{std::string(file), line, std::string(text), std::move(message), Severity::Warning});
}

std::string Diagnostics::format_all() const {
  std::string out;
  for (const auto& d : all_) {
    out += format_diagnostic(d);
    out += '\n';
  }
  return out;
}

std::string Diagnostics::summary() const {
  if (all_.empty()) return "no problems";
  const auto warnings = warning_count();
  std::string out = fmt::format("{} bad line{} skipped", errors_, errors_ == 1 ? "" : "s");
  if (warnings > 0) out += fmt::format(", {} warning{}", warnings, warnings == 1 ? "" : "s");
  return out;
}

}  // namespace gemmtune
