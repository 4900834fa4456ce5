#include "db/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "db/line_end.hpp"
#include "db/text_lines.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// Where errno says the file or its file system refused (full, read-only, no permission, a
// directory in the way, a loop of links, an I/O error), the user has something to fix: bad input
// naming the file. Anything else is ours: an internal error. `temp`, where not empty, is the
// temporary file the call was made on in `path`'s stead: the user knows `path`, so the message
// starts with it, and names the temporary in brackets.
[[noreturn]] void fail_errno(std::string_view call, const std::filesystem::path& path,
                             const std::filesystem::path& temp = {}) {
  const int error = errno;
  const std::string failed =
      temp.empty() ? fmt::format("{} failed", call)
                   : fmt::format("{} failed, on its temporary file {}", call, temp.string());
  switch (error) {
    case ENOSPC:
    case EDQUOT:
    case EROFS:
    case EACCES:
    case EPERM:
    case EISDIR:
    case ENOTDIR:
    case ENOENT:
    case ELOOP:
    case EIO:
    case EFBIG:
      throw InputError(fmt::format("{}: cannot be read or written: {} ({})", path.string(),
                                   std::strerror(error), failed));
    default:
      GEMMTUNE_THROW("{}: {} ({})", path.string(), std::strerror(error), failed);
  }
}

// Owns a file descriptor; closing in the destructor never throws (close errors on the success
// path are checked by close_checked before the destructor runs).
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void close_checked(const std::filesystem::path& path, const std::filesystem::path& temp = {}) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno("close", path, temp);
  }

 private:
  int fd_;
};

// `written`, where given, counts the bytes that reached the file, also when a later write fails.
// `temp`: as fail_errno's.
void write_all(int fd, std::string_view data, const std::filesystem::path& path,
               const std::filesystem::path& temp, std::size_t* written = nullptr) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno("write", path, temp);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
    if (written != nullptr) *written += static_cast<std::size_t>(n);
  }
}

// Whether errno says the file system lacks an operation, rather than refusing this call: vfat and
// exFAT, and FUSE mounts of object stores (gcsfuse, s3fs, blobfuse), have no hard links, and some
// of them cannot sync a directory.
bool unsupported_here(int error) {
  return error == EPERM || error == EINVAL || error == ENOTSUP || error == EOPNOTSUPP ||
         error == ENOSYS;
}

void fsync_directory(const std::filesystem::path& dir) {
  Fd fd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno("open", dir);
  // A file system that cannot sync a directory keeps its entries as it keeps them: nothing more
  // can be done here, and failing would lose the file just written.
  if (::fsync(fd.get()) != 0 && !(errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP)) {
    fail_errno("fsync", dir);
  }
}

// Counts the turns of a loop that starts over where another writer changed `path` meanwhile, and
// ends it with an InputError once kMaxWriteAttempts have gone by (the header says why).
class Attempts {
 public:
  explicit Attempts(const std::filesystem::path& path) : path_(path) {}
  void next() {
    if (++count_ < kMaxWriteAttempts) return;
    throw InputError(
        fmt::format("{}: gave up after {} attempts, each of which found the file replaced, created "
                    "or removed by another writer meanwhile; nothing was written to it",
                    path_.string(), count_));
  }

 private:
  const std::filesystem::path& path_;
  int count_ = 0;
};

}  // namespace

// As long as SQLite's busy timeout (sqlite_handle.cpp): a lock held longer is another process
// stuck, or a user's `flock`, and waiting for it without a word looks like a hang.
constexpr auto kLockTimeout = std::chrono::seconds(30);

// Takes the append lock on `fd`, waiting up to kLockTimeout for the appender that holds it (then
// InputError naming the file); false where the file system has no locks, and the append goes
// ahead unlocked. flock, not fcntl: fcntl locks belong to the process, so two threads of one (a
// Context saving from several) would not exclude each other, and closing any other descriptor of
// the file would drop them.
bool lock_for_append(int fd, const std::filesystem::path& path) {
  const auto deadline = std::chrono::steady_clock::now() + kLockTimeout;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) return false;
    if (errno != EWOULDBLOCK) fail_errno("flock", path);
    if (std::chrono::steady_clock::now() >= deadline) {
      throw InputError(
          fmt::format("{}: locked by another process for more than {} s; nothing "
                      "was written to it",
                      path.string(), kLockTimeout.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Whether `path` still names the file open on `fd`. A planning append may have replaced the file
// (temp file + rename) while we waited for its lock; bytes appended to the old one would be lost
// with it.
bool still_named(int fd, const std::filesystem::path& path) {
  struct stat open_file {};
  struct stat named {};
  if (::fstat(fd, &open_file) != 0) fail_errno("fstat", path);
  if (::stat(path.c_str(), &named) != 0) {
    if (errno == ENOENT) return false;
    fail_errno("stat", path);
  }
  return open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

namespace {

struct AppendTarget {
  Fd fd;
  bool locked;   // false only where the file system has no locks
  bool created;  // this call created the file, so its directory must be fsync'ed too
};

// Opens `path` for appending (creating it if missing) and takes its append lock.
AppendTarget open_for_append(const std::filesystem::path& path) {
  for (Attempts attempts(path);; attempts.next()) {
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    Fd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666));
    if (fd.get() < 0) fail_errno("open", path);
    const bool locked = lock_for_append(fd.get(), path);
    if (!locked || still_named(fd.get(), path)) return {std::move(fd), locked, !existed};
  }
}

// Appends `content` and fsyncs. A line cut short (disk full, a size limit) could still parse: a
// time cut after "0.00" is a 0 ms winner that a resumed run would skip and a merge would prefer.
// So a failed write is taken back to the size the file had before it, which the lock makes exactly
// this call's own bytes; the exception says what failed.
void append_locked(const AppendTarget& target, std::string_view content,
                   const std::filesystem::path& path) {
  const int fd = target.fd.get();
  struct stat before {};
  if (::fstat(fd, &before) != 0) fail_errno("fstat", path);
  std::size_t written = 0;
  try {
    write_all(fd, content, path, {}, &written);
    if (::fsync(fd) != 0) fail_errno("fsync", path);
  } catch (...) {
    // Unlocked, another appender's lines may follow ours; they are worth more than a clean end,
    // so the file is then taken back only if it ends with our bytes alone.
    struct stat now {};
    const bool only_ours =
        target.locked ||
        (::fstat(fd, &now) == 0 && now.st_size == before.st_size + static_cast<off_t>(written));
    if (only_ours && ::ftruncate(fd, before.st_size) == 0) (void)::fsync(fd);
    throw;
  }
}

// Opens `path` to hold its append lock while the file is replaced; -1 (errno ENOENT) when missing.
// For writing where the file allows it: on NFS flock is emulated with fcntl locks, and an
// exclusive one needs a descriptor open for writing. A file only we may not write (mode 0444) can
// still be replaced, since the directory is what a rename needs.
int open_to_replace(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0 || errno != EACCES) return fd;
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

// A writer killed (-9, power loss) between creating its temporary file and renaming it leaves the
// file behind. The next writer of the same file removes such leftovers: regular files named as
// temporary_path_for names them (with a SQLite temporary's -journal, -wal or -shm), of a process
// that no longer runs here, untouched for an hour. The hour spares a writer of another machine
// that shares the directory (its process id means nothing here), which takes seconds, not hours.
constexpr auto kLeftoverAge = std::chrono::hours(1);

// The process id in NAME where NAME is PREFIX + "PID.N" + an optional SQLite suffix; 0 otherwise.
long leftover_pid(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return 0;
  name.remove_prefix(prefix.size());
  for (const std::string_view suffix : {"-journal", "-wal", "-shm"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  const auto dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return 0;
  const auto all_digits = [](std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!all_digits(name.substr(0, dot)) || !all_digits(name.substr(dot + 1))) return 0;
  long pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + dot, pid);
  return error == std::errc() ? pid : 0;
}

void remove_leftover_temporaries(const std::filesystem::path& path) {
  // fmt, not `"." + name + ".tmp."`: GCC 12 warns (-Wrestrict) on that concatenation inlined.
  const std::string prefix = fmt::format(".{}.tmp.", path.filename().string());
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const long pid = leftover_pid(entry.path().filename().string(), prefix);
    if (pid <= 0 || !entry.is_regular_file(ec) || entry.is_symlink(ec)) continue;
    const auto written = entry.last_write_time(ec);
    if (ec || now - written < kLeftoverAge) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // still running
    std::filesystem::remove(entry.path(), ec);
  }
}

}  // namespace

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
  remove_leftover_temporaries(path);
  // pid + counter is unique among the processes and threads of this host, but a leftover of an
  // earlier process with this one's id may hold the name: the first free one is taken (and
  // O_EXCL, where the caller creates it, catches a race).
  static std::atomic<unsigned> counter{0};
  while (true) {
    const auto temp = path.parent_path() /
                      fmt::format(".{}.tmp.{}.{}", path.filename().string(), ::getpid(), counter++);
    std::error_code ec;
    const auto taken = [&](const char* suffix) {
      return std::filesystem::exists(std::filesystem::symlink_status(temp.string() + suffix, ec));
    };
    if (!taken("") && !taken("-journal") && !taken("-wal") && !taken("-shm")) return temp;
  }
}

std::filesystem::path through_links(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return path;
  const auto target = std::filesystem::canonical(path, ec);
  if (!ec) return target;
  // Points to no file (yet): followed by hand, to the name open(2) with O_CREAT would create, so
  // that a new file goes where writers using either name find it. A link is relative to its own
  // directory. As many hops as Linux follows (40), so a loop ends.
  std::filesystem::path at = path;
  for (int hop = 0; hop < 40 && std::filesystem::is_symlink(at, ec); ++hop) {
    const auto to = std::filesystem::read_symlink(at, ec);
    if (ec) return path;
    at = to.is_absolute() ? to : at.parent_path() / to;
  }
  return std::filesystem::is_symlink(at, ec) ? path : at;
}

void rename_durably(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) fail_errno("rename", to);
  fsync_directory(to.parent_path());
}

void write_file_atomically(const std::filesystem::path& named,
                           const std::function<void(const ChunkWriter&)>& produce) {
  const auto path = through_links(named);
  const auto temp = temporary_path_for(path);
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail_errno("open", named, temp);
  try {
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && ::fchmod(fd.get(), old.st_mode & 07777) != 0) {
      fail_errno("fchmod", named, temp);
    }
    produce([&](std::string_view chunk) { write_all(fd.get(), chunk, named, temp); });
    if (::fsync(fd.get()) != 0) fail_errno("fsync", named, temp);
    fd.close_checked(named, temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) fail_errno("rename", named, temp);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  fsync_directory(path.parent_path());
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  write_file_atomically(path, [&](const ChunkWriter& write) { write(content); });
}

namespace {

struct Placed {
  bool created = false;   // false: a file was there already, and stays as it was
  bool temp_left = true;  // the temporary is still there, to be removed
};

// Puts the written temporary `temp` at `path` unless a file is there: link(2), which fails rather
// than replaces. Where the file system has no hard links, renameat2's RENAME_NOREPLACE does the
// same. Where it has neither, `path` is created exclusively (O_EXCL) and `content` written into it
// under the append lock; a reader coming meanwhile may see it half written, but another writer's
// file is never replaced: one that found the new file and, before the lock was ours, appended to
// it or renamed its own over it keeps what it wrote, and this call reports the file as there.
Placed place_unless_there(const std::filesystem::path& temp, const std::filesystem::path& path,
                          std::string_view content, const std::filesystem::path& named) {
  if (::link(temp.c_str(), path.c_str()) == 0) return {true, true};
  if (errno == EEXIST) return {false, true};
  if (!unsupported_here(errno)) fail_errno("link", named, temp);
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    return {true, false};
  }
  if (errno == EEXIST) return {false, true};
  if (!unsupported_here(errno)) fail_errno("rename", named, temp);
  ::unlink(temp.c_str());
  for (Attempts attempts(named);; attempts.next()) {
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.get() < 0) {
      if (errno == EEXIST) return {false, false};
      fail_errno("open", named);
    }
    (void)lock_for_append(fd.get(), path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) fail_errno("fstat", named);
    if (st.st_size != 0) return {false, false};
    if (!still_named(fd.get(), path)) {
      // Replaced by another writer's file, which stays; or removed, and still to be made.
      struct stat there {};
      if (::lstat(path.c_str(), &there) == 0 || errno != ENOENT) return {false, false};
      continue;
    }
    try {
      write_all(fd.get(), content, named, {});
      if (::fsync(fd.get()) != 0) fail_errno("fsync", named);
    } catch (...) {
      // Emptied, not removed: an empty file holds nothing, and the next writer starts it afresh,
      // while a name removed here could by then be another writer's file.
      if (::ftruncate(fd.get(), 0) == 0) (void)::fsync(fd.get());
      throw;
    }
    fd.close_checked(named);
    return {true, false};
  }
}

}  // namespace

std::string empty_file_hint(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) != 0 ||
      ec) {
    return {};
  }
  return " (it is empty: left by a write that failed or was cut short? remove it)";
}

bool create_file_atomically(const std::filesystem::path& named, std::string_view content) {
  // link(2) does not follow a symbolic link at its new name: through one that points to no file
  // yet, it would fail (EEXIST) however often it were tried. The file is made where it points.
  const auto path = through_links(named);
  const auto temp = temporary_path_for(path);
  {
    Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd.get() < 0) fail_errno("open", named, temp);
    try {
      write_all(fd.get(), content, named, temp);
      if (::fsync(fd.get()) != 0) fail_errno("fsync", named, temp);
      fd.close_checked(named, temp);
    } catch (...) {
      ::unlink(temp.c_str());
      throw;
    }
  }
  Placed placed;
  try {
    placed = place_unless_there(temp, path, content, named);
  } catch (...) {
    ::unlink(temp.c_str());  // where it is still there
    throw;
  }
  if (placed.temp_left) ::unlink(temp.c_str());
  if (!placed.created) {
    // A link still in the way is one that leads to no file through_links could name (a loop, or
    // one made since): "exists" would send the caller to open it, which fails, and back here.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0) {
      throw InputError(fmt::format(
          "{}: cannot be created: it is a symbolic link that leads to no file it can create ({})",
          named.string(), std::strerror(errno)));
    }
    return false;
  }
  fsync_directory(path.parent_path());
  return true;
}

namespace {

FileIdentity identity_from(const struct stat& st) {
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return identity_from(st);
}

bool append_lines_if_same(const std::filesystem::path& path, std::string_view lines,
                          const HeldFile& held) {
  for (Attempts attempts(path);; attempts.next()) {
    // Opened again rather than written through `held`: flock(2) excludes open files, not
    // processes, so each append needs its own for two threads of one process to take turns.
    Fd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    if (fd.get() < 0) {
      if (errno == ENOENT) return false;  // moved or removed: not the file that was checked
      fail_errno("open", path);
    }
    const bool locked = lock_for_append(fd.get(), path);
    if (locked && !still_named(fd.get(), path)) continue;  // replaced while we waited
    if (!held.is_open_on(fd.get())) return false;
    AppendTarget target{std::move(fd), locked, false};
    // Read through `held`, open for reading on this same file; under the lock, so no other
    // gemmtune appender ends or starts a line between the look and the write.
    if (ends_mid_line(held.fd())) {
      std::string after_newline(1, '\n');  // built up, not "\n" + ...: GCC 12's -Wrestrict
      after_newline += lines;              // misfires on that
      append_locked(target, after_newline, path);
    } else {
      append_locked(target, lines, path);
    }
    target.fd.close_checked(path);
    return true;
  }
}

void append_durably(const std::filesystem::path& path, std::string_view content) {
  AppendTarget target = open_for_append(path);
  append_locked(target, content, path);
  target.fd.close_checked(path);  // releases the lock, after the fsync
  if (target.created) fsync_directory(path.parent_path());
}

void append_durably(const std::filesystem::path& path,
                    const std::function<AppendPlan(std::string_view content)>& plan) {
  AppendTarget target = open_for_append(path);
  // Read by path: the lock is on the file `path` names (open_for_append checked), and no appender
  // changes it until we are done.
  const AppendPlan decided = plan(read_file(path));
  if (decided.replace_with) {
    // Still holding the lock on the file it replaces: an appender waiting on that one finds, once
    // it has the lock, that the path names another file, and appends to that.
    write_file_atomically(path, *decided.replace_with);
    return;
  }
  if (!decided.append.empty()) append_locked(target, decided.append, path);
  target.fd.close_checked(path);
  if (target.created) fsync_directory(path.parent_path());
}

void rewrite_file_atomically(
    const std::filesystem::path& path,
    const std::function<std::optional<std::string>(std::optional<std::string_view> content)>&
        rewrite) {
  for (Attempts attempts(path);; attempts.next()) {
    Fd fd(open_to_replace(path));
    if (fd.get() < 0) {
      if (errno != ENOENT) fail_errno("open", path);
      // Nothing to lock: link(2) instead of rename, which fails rather than replace a file that
      // another writer (an appender writing its header and first line) created meanwhile.
      const auto content = rewrite(std::nullopt);
      if (!content || create_file_atomically(path, *content)) return;
      continue;
    }
    // A replacer that held the lock before us may have renamed another file over `path`.
    if (lock_for_append(fd.get(), path) && !still_named(fd.get(), path)) continue;
    const auto content = rewrite(read_file(path));
    // Replaced with the lock still held on the old file (released when `fd` closes): an appender
    // waiting on it then finds the new one, and appends after what we wrote.
    if (content) write_file_atomically(path, *content);
    return;
  }
}

void check_can_write(const std::filesystem::path& path) {
  std::error_code ec;
  // A symbolic link is written through: the temporary file goes beside its target, even one
  // that does not exist yet.
  const std::filesystem::path written = through_links(path);
  const std::filesystem::path dir = written.parent_path().empty() ? "." : written.parent_path();
  const auto status = std::filesystem::status(dir, ec);
  if (!std::filesystem::exists(status)) {
    throw InputError(fmt::format("{}: cannot be written: the directory {} does not exist",
                                 path.string(), dir.string()));
  }
  if (!std::filesystem::is_directory(status)) {
    throw InputError(
        fmt::format("{}: cannot be written: {} is not a directory", path.string(), dir.string()));
  }
  // Writes go through a temporary file beside the target (write_file_atomically), so the
  // directory itself must take new files: one is created there and removed. access(2) would say
  // yes to root in a directory that takes none (/proc).
  const std::filesystem::path probe = temporary_path_for(written);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw InputError(fmt::format("{}: cannot be written: the directory {}: {}", path.string(),
                                 dir.string(), std::strerror(errno)));
  }
  ::close(fd);
  std::filesystem::remove(probe, ec);
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a file", path.string()));
  }
}

void require_regular_file(std::string_view label, const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a file", label));
  }
  throw InputError(fmt::format("{}: no such file", label));
}

}  // namespace gemmtune
