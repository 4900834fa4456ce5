#include "validator/collect.hpp"

#include <string>
#include <string_view>

namespace gemmtune {

std::string_view gemmtune_version() {
  return GEMMTUNE_VERSION_STRING;
}

namespace {

// A results file's reader trims the spaces round a value (CSV lines are trimmed, '\r' with them)
// and a line break ends a line, so a value that has either (some CPUs' /proc/cpuinfo model names
// end in spaces; a driver's string may end in a line break) would never match the file this
// machine wrote itself: control bytes become spaces, and the spaces round the value go.
std::string as_written(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  const auto first = out.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return out.substr(first, out.find_last_not_of(' ') - first + 1);
}

}  // namespace

Environment collect_environment(const Backend& backend) {
  Environment env;
  env.set(std::string(kGemmtuneVersionKey), std::string(gemmtune_version()));
  env.set(std::string(kBackendKey), as_written(backend.properties().backend));
  const Environment versions = backend.versions();  // named: a temporary's entries() would dangle
  for (const auto& [key, value] : versions.entries()) env.set(key, as_written(value));
  return env;
}

}  // namespace gemmtune
