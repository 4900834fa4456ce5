#include "drivers/tune_claims.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "db/atomic_file.hpp"
#include "db/sqlite_store.hpp"
#include "tuner/error.hpp"

namespace gemmtune {
namespace {

[[noreturn]] void fail(std::string_view call, const std::filesystem::path& path) {
  throw std::runtime_error(
      fmt::format("{}: {} failed: {}", path.string(), call, std::strerror(errno)));
}

class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string first_line_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The start time /proc gives a process (field 22 of its stat line, after the command name, which
// may itself hold spaces and parentheses); nullopt where no such process runs.
std::optional<unsigned long long> process_start_ticks(long pid) {
  const std::string stat = first_line_of(fmt::format("/proc/{}/stat", pid));
  const auto name_end = stat.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return std::nullopt;
}

TuneClaim this_process() {
  TuneClaim self;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) fail("gethostname", "this machine");
  self.host = host;
  // The boot, and the PID namespace, in which this process's id means what it says: processes in
  // another namespace (a container with the host's name) cannot be looked up in our /proc.
  std::error_code ec;
  const auto pid_namespace = std::filesystem::read_symlink("/proc/self/ns/pid", ec);
  self.boot = first_line_of("/proc/sys/kernel/random/boot_id") + "/" +
              (ec ? std::string("?") : pid_namespace.string());
  self.pid = static_cast<long>(::getpid());
  const auto start = process_start_ticks(self.pid);
  if (!start) throw std::runtime_error("/proc/self/stat: cannot read this process's start time");
  self.start_ticks = *start;
  return self;
}

bool same_process(const TuneClaim& a, const TuneClaim& b) {
  return a.host == b.host && a.boot == b.boot && a.pid == b.pid && a.start_ticks == b.start_ticks;
}

// Whether a claim someone else wrote still stands (the rules in the header).
bool still_counts(const TuneClaim& claim, const TuneClaim& self, long long now_s) {
  const auto boot_id = [](const std::string& boot) { return boot.substr(0, boot.find('/')); };
  if (claim.host == self.host && boot_id(claim.boot) != boot_id(self.boot)) {
    return false;  // made before this machine last started
  }
  if (claim.host != self.host || claim.boot != self.boot) {  // another machine or PID namespace
    return now_s - claim.written_s <
           std::chrono::duration_cast<std::chrono::seconds>(kForeignClaimLifetime).count();
  }
  return process_start_ticks(claim.pid) == claim.start_ticks;
}

template <typename Number>
bool parse_number(std::string_view text, Number& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// host, boot, pid, start, written, environment, op signature, params signature: tab-separated.
std::optional<TuneClaim> parse_claim(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t at = 0;;) {
    const auto tab = line.find('\t', at);
    fields.push_back(line.substr(at, tab == std::string_view::npos ? tab : tab - at));
    if (tab == std::string_view::npos) break;
    at = tab + 1;
  }
  if (fields.size() != 8) return std::nullopt;
  TuneClaim claim;
  claim.host = fields[0];
  claim.boot = fields[1];
  if (!parse_number(fields[2], claim.pid) || !parse_number(fields[3], claim.start_ticks) ||
      !parse_number(fields[4], claim.written_s) || fields[6].empty() || fields[7].empty()) {
    return std::nullopt;
  }
  claim.environment = fields[5];
  claim.op_signature = fields[6];
  claim.params_signature = fields[7];
  return claim;
}

std::string format_claim(const TuneClaim& c) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", c.host, c.boot, c.pid, c.start_ticks,
                     c.written_s, c.environment, c.op_signature, c.params_signature);
}

bool same_problem(const TuneClaim& c, const TuneClaim& self, const std::string& op,
                  const std::string& params) {
  return c.environment == self.environment && c.op_signature == op && c.params_signature == params;
}

std::string read_all(int fd, const std::filesystem::path& path) {
  std::string content;
  char buffer[8192];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("read", path);
    }
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  if (::ftruncate(fd, 0) != 0) fail("ftruncate", path);
  for (off_t at = 0; !content.empty();) {
    const ssize_t n = ::pwrite(fd, content.data(), content.size(), at);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", path);
    }
    content.remove_prefix(static_cast<std::size_t>(n));
    at += n;
  }
}

// Fields are tab-separated and claims are lines: a problem whose signature holds either is left
// unclaimed (it is tuned, as it would be without claims).
bool claimable(const std::string& text) {
  return text.find_first_of("\t\n\r") == std::string::npos;
}

}  // namespace

std::string TuneClaim::describe() const {
  return fmt::format("process {} on {}", pid, host);
}

std::filesystem::path claims_path_for(const std::filesystem::path& output) {
  const std::filesystem::path target = through_links(output);
  // fmt, not `"." + name + ".claims"`: GCC 12 warns (-Wrestrict) on that concatenation inlined.
  return target.parent_path() / fmt::format(".{}.claims", target.filename().string());
}

std::string environment_key(const Environment& environment) {
  // The fingerprint databases key environments by, hashed: it may hold tabs and newlines.
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a: the same in every build and process
  for (const char c : environment_fingerprint(environment)) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return fmt::format("{:016x}", hash);
}

TuneClaims::TuneClaims(const std::filesystem::path& output, const Environment& environment,
                       std::chrono::seconds refresh_interval)
    : path_(claims_path_for(output)),
      output_(through_links(output)),
      refresh_interval_(std::max(refresh_interval, std::chrono::seconds(1))) {
  try {
    self_ = this_process();
    self_.environment = environment_key(environment);
  } catch (const std::exception& e) {
    off_reason_ = e.what();
    return;
  }
  std::error_code ec;
  if (std::filesystem::exists(path_, ec)) update([](std::vector<TuneClaim>&) {});
}

TuneClaims::~TuneClaims() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_refreshing_.notify_all();
  if (refresher_.joinable()) refresher_.join();
  if (held_.empty() && unreleased_.empty()) return;
  update([&](std::vector<TuneClaim>& claims) {
    std::erase_if(claims, [&](const TuneClaim& c) { return same_process(c, self_); });
  });
}

std::string TuneClaims::off_reason() const {
  const std::lock_guard lock(mutex_);
  return off_reason_;
}

std::string TuneClaims::last_error() const {
  const std::lock_guard lock(mutex_);
  return last_error_;
}

std::string TuneClaims::sharing_note() const {
  const std::lock_guard lock(mutex_);
  const std::string& why = off_reason_.empty() ? last_error_ : off_reason_;
  if (why.empty()) return "";
  return fmt::format(
      "problems were not always shared with other tune runs on this output ({}): a problem "
      "another run tuned at the same time may have been measured twice",
      why);
}

void TuneClaims::keep_alive() {
  std::unique_lock lock(mutex_);
  while (!stop_refreshing_.wait_for(lock, refresh_interval_, [&] { return stopping_; })) {
    // update() writes our claims' time again once it is refresh_interval_ old, and removes the
    // ones whose release could not be written.
    if (!held_.empty() || !unreleased_.empty()) update([](std::vector<TuneClaim>&) {});
  }
}

std::optional<std::string> TuneClaims::claim(const std::string& op_signature,
                                             const std::string& params_signature) {
  if (!claimable(op_signature) || !claimable(params_signature)) return std::nullopt;
  const std::lock_guard lock(mutex_);
  // Claimed again before its release could be written (a problem back in a multi-device run's
  // queue): the line still there is the claim.
  std::erase(unreleased_, std::pair(op_signature, params_signature));
  std::optional<std::string> holder;
  update([&](std::vector<TuneClaim>& claims) {
    for (const auto& c : claims) {
      if (same_problem(c, self_, op_signature, params_signature)) {
        if (!same_process(c, self_)) holder = c.describe();
        return;
      }
    }
    TuneClaim mine = self_;
    mine.op_signature = op_signature;
    mine.params_signature = params_signature;
    claims.push_back(std::move(mine));
  });
  if (holder) return holder;
  held_.emplace_back(op_signature, params_signature);
  if (!refresher_.joinable() && off_reason_.empty()) {
    try {
      refresher_ = std::thread([this] { keep_alive(); });
    } catch (const std::system_error& e) {
      // Claims are advice: without the thread they are only written as the run claims and
      // releases, and one problem tuned on another machine for over 10 minutes may be taken up
      // there again.
      last_error_ = fmt::format("no thread to keep the claims fresh: {}", e.what());
    }
  }
  return std::nullopt;
}

void TuneClaims::release(const std::string& op_signature, const std::string& params_signature) {
  const std::lock_guard lock(mutex_);
  const auto held =
      std::find(held_.begin(), held_.end(), std::pair(op_signature, params_signature));
  if (held == held_.end()) return;
  // Where the file cannot be written just now, every later write of it removes the claim (the
  // refresher's, within refresh_interval_), and it is no longer kept fresh meanwhile.
  unreleased_.push_back(std::move(*held));
  held_.erase(held);
  update([](std::vector<TuneClaim>&) {});
}

bool TuneClaims::update(const std::function<void(std::vector<TuneClaim>&)>& change) {
  if (!off_reason_.empty()) return false;
  try {
    // Each retry follows another process removing or replacing the file while we waited for its
    // lock; a path that never settles is no place for claims.
    for (int attempt = 0; attempt < 100; ++attempt) {
      bool created = true;
      int raw = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (raw < 0 && errno == EEXIST) {
        created = false;
        raw = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
      }
      OwnedFd fd(raw);
      if (fd.get() < 0) {
        if (errno == ENOENT && !created) continue;  // removed between the two opens
        fail("open", path_);
      }
      // Whoever may write the output may claim: the output's write bits for group and others,
      // where this process's umask took them away.
      struct stat output {};
      struct stat mine {};
      if (created && ::stat(output_.c_str(), &output) == 0 && ::fstat(fd.get(), &mine) == 0) {
        const mode_t wanted = mine.st_mode | (output.st_mode & (S_IWGRP | S_IWOTH | 0444));
        if ((wanted & 07777) != (mine.st_mode & 07777)) ::fchmod(fd.get(), wanted & 0666);
      }
      // Without locks (a file system that has none) the claims are still read and written; two
      // writers at once may then lose a claim, which costs a problem measured twice.
      const bool locked = lock_for_append(fd.get(), path_);
      if (locked && !still_named(fd.get(), path_)) continue;  // its last claim went meanwhile

      const long long now_s = std::chrono::duration_cast<std::chrono::seconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
      const std::string before = read_all(fd.get(), path_);
      std::vector<TuneClaim> claims;
      std::istringstream lines(before);
      for (std::string line; std::getline(lines, line);) {
        auto claim = parse_claim(line);
        if (claim && (same_process(*claim, self_) || still_counts(*claim, self_, now_s))) {
          claims.push_back(std::move(*claim));
        }
      }
      change(claims);
      for (const auto& [op, params] : unreleased_) {
        std::erase_if(claims, [&](const TuneClaim& c) {
          return same_process(c, self_) && same_problem(c, self_, op, params);
        });
      }
      if (claims.empty()) {
        // Removed while still locked: a process waiting for the lock finds the path no longer
        // names this file, and opens it anew.
        if (::unlink(path_.c_str()) != 0 && errno != ENOENT) fail("unlink", path_);
        unreleased_.clear();
        return true;
      }
      std::string content;
      for (auto& c : claims) {
        // What keeps our claims alive on other machines; no more often than the refresher's
        // interval, which leaves the file unwritten while a run waits and nothing changes.
        if (same_process(c, self_) && now_s - c.written_s >= refresh_interval_.count()) {
          c.written_s = now_s;
        }
        content += format_claim(c);
      }
      if (content != before) write_all(fd.get(), content, path_);
      unreleased_.clear();
      return true;
    }
    throw std::runtime_error(path_.string() + ": replaced or removed 100 times while we waited");
  } catch (const InputError& e) {
    off_reason_ = e.what();  // a lock held too long: waiting that long again for every problem
    return false;            // would cost more than measuring one twice
  } catch (const std::exception& e) {
    last_error_ = e.what();  // another user's file, say: the next claim tries again
    return false;
  }
}

}  // namespace gemmtune
