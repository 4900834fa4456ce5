#include "cli/same_file_checks.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "db/text_lines.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cli {

void refuse_outputs_over_others(const std::vector<NamedPath>& outputs,
                                const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    std::vector<const NamedPath*> others;
    for (std::size_t j = i + 1; j < outputs.size(); ++j) others.push_back(&outputs[j]);
    for (const NamedPath& in : inputs) others.push_back(&in);
    for (const NamedPath* other : others) {
      if (other->path.empty() || !same_file(out.path, other->path)) continue;
      throw InputError(
          fmt::format("{} {} and {} {} name the same file: the output would replace it", out.option,
                      out.path, other->option, other->path));
    }
  }
}

namespace {

// What a file holds that a report must not replace, or nothing. Reads its first bytes only.
std::optional<std::string> held_results(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  // Unread, it could be anything: a results file this user may replace but not read, say.
  if (!in) return fmt::format("what cannot be checked ({})", std::strerror(errno));
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (is_sqlite_database(head)) return "a SQLite database";
  const auto lines = split_lines(head);
  if (lines.empty()) return std::nullopt;
  const std::string_view first = lines.front().text;
  if (first.starts_with("Validator,")) return "tuning results (its first line is a Validator line)";
  const std::string_view op = first.substr(0, first.find(','));
  if (op.find("TunableOp_") != std::string_view::npos) {
    return "recorded GEMMs (its first line is a TunableOp signature)";
  }
  return std::nullopt;
}

}  // namespace

void refuse_outputs_over_results(const std::vector<NamedPath>& outputs) {
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    if (const auto what = held_results(out.path)) {
      throw InputError(fmt::format(
          "{} {}: holds {}, which a report would replace; name another file, or remove it first",
          out.option, out.path, *what));
    }
  }
}

}  // namespace gemmtune::cli
