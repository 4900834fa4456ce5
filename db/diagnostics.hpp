// Diagnostics: what the readers found wrong with their input, collected instead of thrown.
//
// Contract: a bad line never ends a read; it becomes a Diagnostic naming file, line, the line's
// text and what is wrong, and the good lines are still used. Warnings are for lines that are
// kept anyway (a signature this version cannot parse, a duplicate that replaces an earlier
// entry). In strict mode (the CLI's --strict) the first error throws InputError carrying the
// same formatted message; warnings never throw, because they lose nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune {

enum class Severity { Error, Warning };

struct Diagnostic {
  std::string file;
  int line = 0;         // 0 when the problem concerns the whole file
  std::string text;     // the offending line as read (after trimming)
  std::string message;  // what is wrong, for a person
  Severity severity = Severity::Error;
};

// "FILE:LINE: MESSAGE\n    TEXT" (warnings say "warning: " before the message).
std::string format_diagnostic(const Diagnostic& d);

class Diagnostics {
 public:
  explicit Diagnostics(bool strict = false) : strict_(strict) {}

  bool strict() const { return strict_; }

  // Records a bad line; throws InputError with the formatted diagnostic in strict mode.
  void error(std::string_view file, int line, std::string_view text, std::string message);
  // Records a line that was kept despite something worth knowing.
  void warning(std::string_view file, int line, std::string_view text, std::string message);

  const std::vector<Diagnostic>& all() const { return all_; }
  std::size_t error_count() const { return errors_; }
  std::size_t warning_count() const { return all_.size() - errors_; }
  bool empty() const { return all_.empty(); }

  // Every diagnostic, formatted, one after the other.
  std::string format_all() const;
  // "2 bad lines skipped, 1 warning" or "no bad lines" (not "no problems": a problem is a GEMM).
  std::string summary() const;

 private:
  bool strict_;
  std::size_t errors_ = 0;
  std::vector<Diagnostic> all_;
};

}  // namespace gemmtune
