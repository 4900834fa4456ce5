/* A file system without hard links, for tests (LD_PRELOAD): link(2) fails with EPERM, as on vfat,
 * exFAT and FUSE mounts of object stores (gcsfuse, s3fs); fsync of a directory fails with EINVAL,
 * as on some of those; and with GEMMTUNE_SHIM_NO_RENAMEAT2 set, renameat2 fails with EINVAL, as
 * where the file system lacks RENAME_NOREPLACE. Everything else reaches libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int link(const char* from, const char* to) {
  (void)from;
  (void)to;
  errno = EPERM;
  return -1;
}

int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  (void)from_dir;
  (void)from;
  (void)to_dir;
  (void)to;
  (void)flags;
  errno = EPERM;
  return -1;
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
  if (getenv("GEMMTUNE_SHIM_NO_RENAMEAT2") != NULL) {
    errno = EINVAL;
    return -1;
  }
  int (*real)(int, const char*, int, const char*, unsigned) =
      (int (*)(int, const char*, int, const char*, unsigned))dlsym(RTLD_NEXT, "renameat2");
  return real(from_dir, from, to_dir, to, flags);
}

int fsync(int fd) {
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    errno = EINVAL;
    return -1;
  }
  int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  return real(fd);
}
