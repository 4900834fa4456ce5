#include "db/line_end.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace gemmtune {

bool ends_mid_line(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size == 0) return false;
  char last = '\n';
  return ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

}  // namespace gemmtune
