#include "db/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "tuner/error.hpp"

namespace gemmtune {

namespace {

// What a terminal can show of a line or message: control bytes (a NUL, an escape sequence) as
// \xNN, and at most `limit` bytes of it. A 3 MB line (a file of another kind, run together)
// printed whole, once as the line and again in its message, buried everything else.
std::string shown(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t cut = std::min(limit, text.size());
  // Not inside a UTF-8 character: back to its first byte (continuation bytes are 10xxxxxx).
  while (cut > 0 && cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  const std::string_view head = text.substr(0, cut);
  out.reserve(head.size());
  for (const char c : head) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  if (cut < text.size()) out += fmt::format("… ({} more bytes)", text.size() - cut);
  return out;
}

}  // namespace

std::string format_diagnostic(const Diagnostic& d) {
  constexpr std::size_t kShownLine = 200;
  constexpr std::size_t kShownMessage = 400;  // a message may quote a whole field
  const std::string_view kind = d.severity == Severity::Warning ? "warning: " : "";
  const std::string message = shown(d.message, kShownMessage);
  std::string out = d.line > 0 ? fmt::format("{}:{}: {}{}", d.file, d.line, kind, message)
                               : fmt::format("{}: {}{}", d.file, kind, message);
  if (!d.text.empty()) out += fmt::format("\n    {}", shown(d.text, kShownLine));
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
  all_.push_back(Diagnostic{std::string(file), line, std::string(text), std::move(message),
                            Severity::Warning});
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
  if (all_.empty()) return "no bad lines";
  const auto warnings = warning_count();
  std::string out = fmt::format("{} bad line{} skipped", errors_, errors_ == 1 ? "" : "s");
  if (warnings > 0) out += fmt::format(", {} warning{}", warnings, warnings == 1 ? "" : "s");
  return out;
}

}  // namespace gemmtune
