#include "db/same_file.hpp"

#include <filesystem>
#include <system_error>

namespace gemmtune {

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

}  // namespace gemmtune
