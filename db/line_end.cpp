#include "db/line_end.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gemmtune {

bool ends_mid_line(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) return false;
  char last = '\n';
  return ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

bool ends_mid_line(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool cut = ends_mid_line(fd);
  ::close(fd);
  return cut;
}

}  // namespace gemmtune
