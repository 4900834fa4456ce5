#include "cli/same_file_checks.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "tuner/error.hpp"

namespace gemmtune::cli {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const auto normal = [](const std::string& p) {
    std::error_code e;
    const std::filesystem::path absolute = std::filesystem::absolute(p, e);
    return (e ? std::filesystem::path(p) : absolute).lexically_normal();
  };
  return normal(a) == normal(b);
}

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

}  // namespace gemmtune::cli
