// The claims that let `tune` runs on one output share its problems out (drivers/tune_claims.hpp):
// a live claimer's claim holds, a dead one's (killed, a pid reused, an earlier boot, another
// machine silent too long) is dropped, and the file goes when the last claim does.
#include "drivers/tune_claims.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "db/text_lines.hpp"
#include "temp_dir.hpp"

namespace gemmtune {
namespace {

const std::string kOp = "GemmTunableOp_float_NN";
const std::string kA = "nn_8_16_16_ld_8_16_8";
const std::string kB = "nn_16_16_16_ld_16_16_16";
const Environment kEnv{{"PT_VERSION", "2.11.0"}};

long long now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Waits up to 20 s (a loaded machine) for `done`; whether it came.
bool eventually(const std::function<bool()>& done) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The claims file as its writers leave it: read under their lock, since a refresher thread may be
// rewriting it (truncated, then written) at any moment.
std::string read_claims(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  ::flock(fd, LOCK_EX);
  std::string content;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) content.append(buffer, n);
  ::close(fd);
  return content;
}

std::string line_of(const std::string& host, const std::string& boot, long pid,
                    unsigned long long start, long long written, const std::string& params,
                    const Environment& environment = kEnv) {
  return fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", host, boot, pid, start, written,
                     environment_key(environment), kOp, params);
}

// This machine's claim identity, as a claim written by this process shows it.
TuneClaim own_identity(const std::filesystem::path& output) {
  TuneClaims claims(output, kEnv);
  EXPECT_EQ(claims.claim(kOp, "probe"), std::nullopt);
  const std::string line = read_file(claims.path());
  TuneClaim self;
  std::istringstream fields(line);
  std::getline(fields, self.host, '\t');
  std::getline(fields, self.boot, '\t');
  fields >> self.pid >> self.start_ticks;
  return self;
}

// A child process that claims `params` on `output` and then waits to be killed.
pid_t child_claiming(const std::filesystem::path& output, const std::string& params) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    {
      TuneClaims claims(output, kEnv);
      const bool mine = !claims.claim(kOp, params).has_value();
      const char answer = mine ? 'y' : 'n';
      if (::write(ready[1], &answer, 1) != 1) ::_exit(2);
      ::pause();
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  char answer = 0;
  const bool ok = ::read(ready[0], &answer, 1) == 1 && answer == 'y';
  ::close(ready[0]);
  if (!ok) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

TEST(TuneClaims, AClaimIsWrittenBesideTheOutputAndTheFileGoesWithTheLastClaim) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  EXPECT_EQ(claims_path_for(output), dir / ".res.csv.claims");
  {
    TuneClaims claims(output, kEnv);
    EXPECT_EQ(claims.claim(kOp, kA), std::nullopt);
    EXPECT_EQ(claims.claim(kOp, kB), std::nullopt);
    const std::string content = read_file(claims.path());
    EXPECT_NE(content.find(kOp + "\t" + kA + "\n"), std::string::npos) << content;
    EXPECT_NE(content.find(kOp + "\t" + kB + "\n"), std::string::npos) << content;
    claims.release(kOp, kA);
    EXPECT_EQ(read_file(claims.path()).find(kA), std::string::npos);
    EXPECT_TRUE(claims.off_reason().empty()) << claims.off_reason();
  }  // kB still held: the destructor lets go of it
  EXPECT_FALSE(std::filesystem::exists(dir / ".res.csv.claims"));
}

TEST(TuneClaims, ALinkedOutputKeepsItsClaimsBesideTheFileItNames) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir / "real");
  testing::write_text(dir / "real" / "res.csv", "");
  std::filesystem::create_symlink(dir / "real" / "res.csv", dir / "link.csv");
  EXPECT_EQ(claims_path_for(dir / "link.csv"), dir / "real" / ".res.csv.claims");
}

TEST(TuneClaims, AClaimOfALiveProcessHoldsUntilItIsKilled) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  const pid_t child = child_claiming(output, kA);
  ASSERT_GT(child, 0);
  {
    TuneClaims claims(output, kEnv);
    const auto holder = claims.claim(kOp, kA);
    ASSERT_TRUE(holder.has_value());
    EXPECT_NE(holder->find(fmt::format("process {} on ", child)), std::string::npos) << *holder;
    EXPECT_EQ(claims.claim(kOp, kB), std::nullopt);  // another problem is free
    ::kill(child, SIGKILL);  // no destructor runs: its claim stays in the file
    ::waitpid(child, nullptr, 0);
    EXPECT_NE(read_file(claims.path()).find(kA), std::string::npos);
    EXPECT_EQ(claims.claim(kOp, kA), std::nullopt);  // dropped: its process is gone
  }
  EXPECT_FALSE(std::filesystem::exists(claims_path_for(output)));
}

TEST(TuneClaims, ClaimsOfNoLiveProcessAreDropped) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  const TuneClaim self = own_identity(output);
  const long parent = static_cast<long>(::getppid());
  // A foreign claim that is fresh holds; every other line here is stale or unreadable.
  const std::string foreign = line_of("another-host", "b", 42, 7, now_s() - 5, "foreign_fresh");
  testing::write_text(
      claims_path_for(output),
      foreign + line_of("another-host", "b", 42, 7, now_s() - 11 * 60, "foreign_silent") +
          line_of(self.host, "an-earlier-boot", self.pid, self.start_ticks, now_s(), "old_boot") +
          line_of(self.host, self.boot, parent, 1, now_s(), "pid_reused") + "not a claim\n" +
          "a\tb\tc\td\te\tf\tg\n");
  // Another PID namespace of this machine (a container): its processes are not in our /proc, so
  // its claims are taken as another machine's.
  const std::string boot_id = self.boot.substr(0, self.boot.find('/'));
  testing::write_text(
      claims_path_for(output),
      read_file(claims_path_for(output)) +
          line_of(self.host, boot_id + "/pid:[1]", 1, 7, now_s(), "namespace_fresh") +
          line_of(self.host, boot_id + "/pid:[1]", 1, 7, now_s() - 11 * 60, "namespace_silent"));
  TuneClaims claims(output, kEnv);
  const auto holder = claims.claim(kOp, "foreign_fresh");
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(*holder, "process 42 on another-host");
  EXPECT_TRUE(claims.claim(kOp, "namespace_fresh").has_value());
  EXPECT_EQ(claims.claim(kOp, "namespace_silent"), std::nullopt);
  for (const char* stale : {"foreign_silent", "old_boot", "pid_reused"}) {
    EXPECT_EQ(claims.claim(kOp, stale), std::nullopt) << stale;
  }
  // What is left: the fresh foreign claim, refreshed by no one, the other namespace's, and ours.
  const std::string content = read_file(claims.path());
  EXPECT_EQ(content.rfind(foreign, 0), 0u) << content;
  EXPECT_EQ(content.find("not a claim"), std::string::npos) << content;
  EXPECT_EQ(std::count(content.begin(), content.end(), '\n'), 6) << content;
}

// Runs of two environments tune into one database side by side: a claim holds only for runs of
// its own validators (in any order).
TEST(TuneClaims, AClaimHoldsOnlyForItsOwnEnvironment) {
  testing::TempDir dir;
  const auto output = dir / "res.db";
  const Environment other{{"PT_VERSION", "2.12.0"}};
  EXPECT_EQ(environment_key(Environment{{"A", "1"}, {"B", "2"}}),
            environment_key(Environment{{"B", "2"}, {"A", "1"}}));
  EXPECT_NE(environment_key(kEnv), environment_key(other));
  testing::write_text(claims_path_for(output),
                      line_of("another-host", "b", 42, 7, now_s(), kA, other));
  TuneClaims claims(output, kEnv);
  EXPECT_EQ(claims.claim(kOp, kA), std::nullopt);
  TuneClaims theirs(output, other);
  EXPECT_EQ(theirs.claim(kOp, kA), "process 42 on another-host");
}

// A run that starts drops what runs killed with -9 left; a claim that finds the problem held
// leaves the file as it was (a waiting run polls it); the file takes the output's permission
// bits, so that every user who may write the output may claim.
TEST(TuneClaims, TheFileIsKeptTidyAndSharedAsTheOutputIs) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  const TuneClaim self = own_identity(output);
  testing::write_text(claims_path_for(output),
                      line_of(self.host, "an-earlier-boot", self.pid, 1, now_s(), kA));
  { TuneClaims starting(output, kEnv); }
  EXPECT_FALSE(std::filesystem::exists(claims_path_for(output)));

  testing::write_text(output, "");
  using std::filesystem::perms;
  std::filesystem::permissions(output, perms::owner_read | perms::owner_write | perms::group_read |
                                           perms::group_write | perms::others_read);
  const auto old_umask = ::umask(077);
  TuneClaims claims(output, kEnv);
  EXPECT_EQ(claims.claim(kOp, kB), std::nullopt);
  ::umask(old_umask);
  EXPECT_EQ(std::filesystem::status(claims.path()).permissions(),
            perms::owner_read | perms::owner_write | perms::group_read | perms::group_write |
                perms::others_read);

  const std::string foreign = line_of("another-host", "b", 42, 7, now_s(), kA);
  testing::write_text(claims.path(), foreign);
  const auto written = std::filesystem::last_write_time(claims.path());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(claims.claim(kOp, kA).has_value());
  EXPECT_EQ(std::filesystem::last_write_time(claims.path()), written);
  EXPECT_EQ(read_file(claims.path()), foreign);
}

// Another machine takes a claim for dead once its claimer has not written it for
// kForeignClaimLifetime: a claimer busy with one long problem writes it again on its own.
TEST(TuneClaims, AClaimHeldLongIsWrittenAgainSoThatOtherMachinesKeepSeeingIt) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  TuneClaims claims(output, kEnv, std::chrono::seconds(1));
  ASSERT_EQ(claims.claim(kOp, kA), std::nullopt);
  const auto written = [&] {
    std::istringstream fields(read_claims(claims.path()));
    std::string field;
    for (int i = 0; i < 4; ++i) std::getline(fields, field, '\t');
    long long seconds = 0;
    fields >> seconds;
    return seconds;
  };
  const long long first = written();
  // No call on the object meanwhile: only its own thread can write the file.
  EXPECT_TRUE(eventually([&] { return written() >= first + 2; })) << read_claims(claims.path());
  claims.release(kOp, kA);
  EXPECT_FALSE(std::filesystem::exists(claims.path()));
}

// A release that could not be written (the file out of reach for a moment) is not lost: the next
// write of the file, the refresher's here, removes the claim instead of keeping it fresh, so that
// other runs do not wait for a problem this one has finished.
TEST(TuneClaims, AReleaseThatCouldNotBeWrittenIsWrittenLater) {
  testing::TempDir dir;
  const auto output = dir / "res.csv";
  // The refresher looks every 2 s from the first claim on: the file is taken away and put back
  // right after the claim and right after a turn, well clear of the next.
  TuneClaims claims(output, kEnv, std::chrono::seconds(2));
  ASSERT_EQ(claims.claim(kOp, kA), std::nullopt);
  const std::string held = read_claims(claims.path());
  std::filesystem::remove(claims.path());
  std::filesystem::create_directory(claims.path());  // no file can be opened there
  claims.release(kOp, kA);
  EXPECT_FALSE(claims.last_error().empty());
  std::filesystem::remove(claims.path());
  testing::write_text(claims.path(), held);  // the claim as it was before the release
  // The refresher's next turn removes it (and the file with it); the next turn is 2 s later.
  ASSERT_TRUE(eventually([&] { return !std::filesystem::exists(claims.path()); }))
      << read_claims(claims.path());

  // Claimed again while such a release is still to be written: the claim stands.
  ASSERT_EQ(claims.claim(kOp, kB), std::nullopt);
  const std::string held_b = read_claims(claims.path());
  std::filesystem::remove(claims.path());
  std::filesystem::create_directory(claims.path());
  claims.release(kOp, kB);
  std::filesystem::remove(claims.path());
  testing::write_text(claims.path(), held_b);
  EXPECT_EQ(claims.claim(kOp, kB), std::nullopt);
  EXPECT_NE(read_claims(claims.path()).find(kB), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the refresher writes again
  EXPECT_NE(read_claims(claims.path()).find(kB), std::string::npos) << "the claim was dropped";
}

TEST(TuneClaims, WhereTheFileCannotBeWrittenEveryClaimSucceeds) {
  testing::TempDir dir;
  TuneClaims claims(dir / "missing-dir" / "res.csv", kEnv);
  EXPECT_EQ(claims.claim(kOp, kA), std::nullopt);
  EXPECT_EQ(claims.claim(kOp, kA), std::nullopt);
  EXPECT_NE(claims.last_error().find("missing-dir"), std::string::npos) << claims.last_error();
  EXPECT_TRUE(claims.off_reason().empty());  // the next claim tries again
}

TEST(TuneClaims, ASignatureThatCannotBeALineIsNotClaimed) {
  testing::TempDir dir;
  TuneClaims claims(dir / "res.csv", kEnv);
  EXPECT_EQ(claims.claim(kOp, "with\ttab"), std::nullopt);
  EXPECT_FALSE(std::filesystem::exists(claims.path()));
}

}  // namespace
}  // namespace gemmtune
