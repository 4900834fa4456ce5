#include "validator/collect.hpp"

namespace gemmtune {

std::string_view gemmtune_version() { return GEMMTUNE_VERSION_STRING; }

Environment collect_environment(const Backend& backend) {
  Environment env;
  env.set(std::string(kGemmtuneVersionKey), std::string(gemmtune_version()));
  env.set(std::string(kBackendKey), backend.properties().backend);
  const Environment versions = backend.versions();  // named: a temporary's entries() would dangle
  for (const auto& [key, value] : versions.entries()) env.set(key, value);
  return env;
}

}  // namespace gemmtune
