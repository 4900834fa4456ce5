/* A file system without hard links, for tests (LD_PRELOAD): link(2) fails with EPERM, as on vfat,
 * exFAT and FUSE mounts of object stores (gcsfuse, s3fs); fsync of a directory fails with EINVAL,
 * as on some of those; and with GEMMTUNE_SHIM_NO_RENAMEAT2 set, renameat2 fails with EINVAL, as
 * where the file system lacks RENAME_NOREPLACE. Everything else reaches libc.
 *
 * Each call it refuses is logged, a line each ("link", "renameat2"), to the file
 * GEMMTUNE_SHIM_LOG names, if set: a test then knows which way the file was made.
 *
 * Another writer, where GEMMTUNE_SHIM_INTERLOPER_FILE names a file: the first flock(2) on that
 * file first appends "interloper\n" to it (GEMMTUNE_SHIM_INTERLOPER=append), renames a file
 * holding that over it (=replace) or removes it (=remove), as a second process could between a
 * file's creation and its lock; the variable is then unset, so that this happens once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void log_refusal(const char* call) {
  const char* log = getenv("GEMMTUNE_SHIM_LOG");
  if (log == NULL) return;
  const int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[64];
  const int n = snprintf(line, sizeof line, "%s\n", call);
  if (write(fd, line, (size_t)n) != n) { /* a test's log: nothing to do */
  }
  close(fd);
}

int link(const char* from, const char* to) {
  (void)from;
  (void)to;
  log_refusal("link");
  errno = EPERM;
  return -1;
}

int linkat(int from_dir, const char* from, int to_dir, const char* to, int flags) {
  (void)from_dir;
  (void)from;
  (void)to_dir;
  (void)to;
  (void)flags;
  log_refusal("link");
  errno = EPERM;
  return -1;
}

int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
  if (getenv("GEMMTUNE_SHIM_NO_RENAMEAT2") != NULL) {
    log_refusal("renameat2");
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

static void interlope(const char* path, const char* how) {
  if (strcmp(how, "remove") == 0) {
    if (unlink(path) != 0) abort();
  } else if (strcmp(how, "replace") == 0) {
    char other[PATH_MAX];
    snprintf(other, sizeof other, "%s.interloper", path);
    const int fd = open(other, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, "interloper\n", 11) != 11) abort();
    close(fd);
    if (rename(other, path) != 0) abort();
  } else {
    const int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0 || write(fd, "interloper\n", 11) != 11) abort();
    close(fd);
  }
}

int flock(int fd, int operation) {
  const char* target = getenv("GEMMTUNE_SHIM_INTERLOPER_FILE");
  if (target != NULL && (operation & LOCK_EX) != 0) {
    char link_name[64];
    char path[PATH_MAX];
    snprintf(link_name, sizeof link_name, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link_name, path, sizeof path - 1);
    if (n > 0) {
      path[n] = '\0';
      if (strcmp(path, target) == 0) {
        const char* how = getenv("GEMMTUNE_SHIM_INTERLOPER");
        unsetenv("GEMMTUNE_SHIM_INTERLOPER_FILE");
        interlope(path, how != NULL ? how : "append");
      }
    }
  }
  int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
  return real(fd, operation);
}
