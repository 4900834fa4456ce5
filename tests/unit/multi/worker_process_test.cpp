// WorkerProcess: lines go both ways through the pipes, the child's end is seen and described
// (normal exit, a crash, a kill), environment overrides reach the child, a write to a dead child
// fails instead of killing us, and the destructor never leaves a child behind.
#include "drivers/multi/worker_process.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tuner/error.hpp"

namespace gemmtune {
namespace {

// Reads until `want` lines or end of file (at most ~10 s).
std::vector<std::string> read_until(WorkerProcess& p, std::size_t want) {
  std::vector<std::string> lines;
  for (int i = 0; i < 1000 && lines.size() < want && !p.eof(); ++i) {
    pollfd fd{p.output_fd(), POLLIN, 0};
    ::poll(&fd, 1, 10);
    for (auto& l : p.read_lines()) lines.push_back(std::move(l));
  }
  return lines;
}

TEST(WorkerProcess, EchoesLinesAndEndsCleanly) {
  auto p = WorkerProcess::spawn({"/bin/cat"});
  ASSERT_TRUE(p->send_line("one"));
  ASSERT_TRUE(p->send_line("two\tfields"));
  EXPECT_EQ(read_until(*p, 2), (std::vector<std::string>{"one", "two\tfields"}));
  p->close_input();
  read_until(*p, 1);
  EXPECT_TRUE(p->eof());
  EXPECT_EQ(p->wait(), "exit status 0");
}

// A child that closed its output but does not exit (stuck on its way out) is killed after the
// grace instead of blocking its reaper for good.
TEST(WorkerProcess, AChildThatDoesNotExitIsKilledAfterTheGrace) {
  auto p = WorkerProcess::spawn({"/bin/sh", "-c", "exec >&-; sleep 60"});
  read_until(*p, 1);
  EXPECT_TRUE(p->eof());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(p->wait(std::chrono::milliseconds(200)), "signal 9 (Killed)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(WorkerProcess, DescribesAKill) {
  auto p = WorkerProcess::spawn({"/bin/sleep", "30"});
  p->kill_now();
  read_until(*p, 1);
  EXPECT_TRUE(p->eof());
  EXPECT_EQ(p->wait(), "signal 9 (Killed)");
}

TEST(WorkerProcess, DescribesACrash) {
  // The child (not us) runs a shell here, to abort itself.
  auto p = WorkerProcess::spawn({"/bin/sh", "-c", "kill -ABRT $$"});
  read_until(*p, 1);
  EXPECT_EQ(p->wait(), "signal 6 (Aborted)");
}

TEST(WorkerProcess, ArgumentsAreNeverReparsed) {
  auto p = WorkerProcess::spawn({"/bin/echo", "a b; echo injected", "$HOME"});
  const auto lines = read_until(*p, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "a b; echo injected $HOME");
  p->wait();
}

TEST(WorkerProcess, PassesEnvironmentOverrides) {
  ::setenv("GEMMTUNE_TEST_INHERITED", "yes", 1);
  ::setenv("GEMMTUNE_TEST_OVERRIDDEN", "old", 1);
  auto p = WorkerProcess::spawn({"/usr/bin/env"}, {{"GEMMTUNE_TEST_OVERRIDDEN", "new"}});
  const auto lines = read_until(*p, 1000);
  p->wait();
  auto has = [&](const std::string& s) {
    return std::find(lines.begin(), lines.end(), s) != lines.end();
  };
  EXPECT_TRUE(has("GEMMTUNE_TEST_INHERITED=yes"));
  EXPECT_TRUE(has("GEMMTUNE_TEST_OVERRIDDEN=new"));
  EXPECT_FALSE(has("GEMMTUNE_TEST_OVERRIDDEN=old"));
}

TEST(WorkerProcess, WritingToADeadChildFails) {
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  auto p = WorkerProcess::spawn({"/bin/true"});
  read_until(*p, 1);
  bool sent = true;
  for (int i = 0; i < 100 && sent; ++i) sent = p->send_line(std::string(4096, 'x'));
  EXPECT_FALSE(sent);
  EXPECT_EQ(p->wait(), "exit status 0");
  sigaction(SIGPIPE, &previous, nullptr);
}

TEST(WorkerProcess, DestructorKillsAndReaps) {
  pid_t pid = 0;
  {
    auto p = WorkerProcess::spawn({"/bin/sleep", "30"});
    pid = p->pid();
    EXPECT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_NE(::kill(pid, 0), 0);  // reaped: no such process (not even a zombie)
}

TEST(WorkerProcess, AMissingExecutableIsAnError) {
  EXPECT_THROW(WorkerProcess::spawn({"/nonexistent/gemmtune"}), Error);
}

TEST(WorkerProcess, SelfExecutableIsThisTest) {
  EXPECT_NE(self_executable().find("multi_worker_process_test"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune
