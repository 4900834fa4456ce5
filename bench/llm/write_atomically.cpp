#include "bench/llm/write_atomically.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gemmtune::bench {

void write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", temporary));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace gemmtune::bench
