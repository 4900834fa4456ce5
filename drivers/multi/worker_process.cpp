#include "drivers/multi/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "tuner/error.hpp"

extern char** environ;

namespace gemmtune {
namespace {

[[noreturn]] void fail(std::string_view what, int error) {
  throw_error(__FILE__, __LINE__, fmt::format("{}: {}", what, std::strerror(error)));
}

// RAII for posix_spawn's two attribute objects.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

std::string self_executable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw_error(__FILE__, __LINE__, "cannot read /proc/self/exe: " + ec.message());
  return path.string();
}

std::unique_ptr<WorkerProcess> WorkerProcess::spawn(const std::vector<std::string>& argv,
                                                    const EnvironmentOverrides& overrides) {
  if (argv.empty()) throw_error(__FILE__, __LINE__, "WorkerProcess::spawn: empty argument vector");
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) fail("pipe2", errno);
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(to_child[0]);
    ::close(to_child[1]);
    fail("pipe2", error);
  }

  SpawnSetup setup;
  posix_spawn_file_actions_adddup2(&setup.actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, from_child[1], STDOUT_FILENO);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (const int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD})
    sigaddset(&defaults, sig);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  posix_spawnattr_setsigmask(&setup.attributes, &none);
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  std::map<std::string, std::string> overridden(overrides.begin(), overrides.end());
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (overridden.count(std::string(entry.substr(0, entry.find('='))))) continue;
    env_strings.emplace_back(entry);
  }
  for (const auto& [key, value] : overridden) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &setup.actions, &setup.attributes, args.data(),
                             envp.data());
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (rc != 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    fail(fmt::format("cannot start {}", argv[0]), rc);
  }
  fcntl(from_child[0], F_SETFL, fcntl(from_child[0], F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<WorkerProcess>(new WorkerProcess(pid, to_child[1], from_child[0]));
}

WorkerProcess::~WorkerProcess() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

bool WorkerProcess::send_line(std::string_view line) {
  if (in_fd_ < 0) return false;
  std::string data(line);
  data += '\n';
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(in_fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the child is gone
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void WorkerProcess::close_input() {
  close_fd(in_fd_);
}

std::vector<std::string> WorkerProcess::read_lines() {
  char chunk[4096];
  while (out_fd_ >= 0) {
    const ssize_t n = ::read(out_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    eof_ = true;  // 0: closed; another error: as good as closed
    close_fd(out_fd_);
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(buffer_.substr(start, nl - start));
  }
  buffer_.erase(0, start);
  return lines;
}

void WorkerProcess::kill_now() {
  if (!reaped_) ::kill(pid_, SIGKILL);
}

std::string WorkerProcess::wait(std::chrono::milliseconds grace) {
  close_fd(in_fd_);
  if (reaped_) return "already reaped";
  int status = 0;
  // Its output has ended, so it is exiting; one that hangs on the way out (a GPU context torn
  // down after a fault can take long) must not block the coordinator: killed after a grace.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  bool killed = false;
  while (true) {
    const pid_t done = ::waitpid(pid_, &status, killed ? 0 : WNOHANG);
    if (done == pid_) break;
    if (done < 0 && errno != EINTR) return fmt::format("cannot wait: {}", std::strerror(errno));
    if (!killed && std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      killed = true;
    } else if (!killed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  reaped_ = true;
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("wait status {}", status);
}

}  // namespace gemmtune
