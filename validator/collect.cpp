#include "validator/collect.hpp"

#include <string>
#include <string_view>

namespace gemmtune {

std::string_view gemmtune_version() {
  return GEMMTUNE_VERSION_STRING;
}

namespace {

// A results file's reader trims the spaces round a value (CSV lines are trimmed), so a value
// that has them (some CPUs' /proc/cpuinfo model names end in spaces) would never match the file
// this machine wrote itself.
std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

Environment collect_environment(const Backend& backend) {
  Environment env;
  env.set(std::string(kGemmtuneVersionKey), std::string(gemmtune_version()));
  env.set(std::string(kBackendKey), trimmed(backend.properties().backend));
  const Environment versions = backend.versions();  // named: a temporary's entries() would dangle
  for (const auto& [key, value] : versions.entries()) env.set(key, trimmed(value));
  return env;
}

}  // namespace gemmtune
