// Which problems the `gemmtune tune` runs writing one output are measuring right now, so that
// runs started together on the same inputs share the problems out instead of each measuring all
// of them (and appending each result twice).
//
// The claims live in a hidden file beside the output, ".NAME.claims" (NAME: the file the output's
// path names once its links are followed), one line per problem being tuned: who claimed it
// (host, boot, process id and start time), when that process last wrote the file, the validators
// it measures under (a hash: runs of two environments tune into one database side by side), and
// the problem.
// A run claims a problem just before it measures it and lets go once the result is saved, or once
// it failed. The file is read and written under an exclusive flock(2), and removed when the last
// claim goes.
//
// A claim counts while its claimer lives: on this machine, while a process with that id and start
// time runs; from another machine (a shared file system), for kForeignClaimLifetime after its
// claimer last wrote it, and so do claims from another PID namespace of this machine (a
// container), whose processes our /proc does not show. While a claimer holds claims, a thread of
// its own writes them again once they are kClaimRefreshInterval old (looking every
// kClaimRefreshInterval, so at most twice that apart), so that a problem that takes an hour to
// tune stays claimed. A claim
// that no longer counts (a run killed with -9) is dropped the next time the file is written, and
// when the next run starts on the output.
//
// A new file gets the output's write bits for group and others, so that whoever may write the
// output may claim.
// Claims are advice, never a condition of tuning: where the file cannot be created, read or
// locked (another user's file, a lock held too long), every claim succeeds, and the worst that
// follows is a problem measured twice.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tuner/environment.hpp"

namespace gemmtune {

inline constexpr auto kForeignClaimLifetime = std::chrono::minutes(10);
// A twentieth of the lifetime: a claimer may miss a few refreshes (a slow file system) before
// another machine takes its claim for dead.
inline constexpr auto kClaimRefreshInterval = std::chrono::seconds(30);

// One line of the claims file.
struct TuneClaim {
  std::string host, boot;  // gethostname(2); the kernel's boot id
  long pid = 0;
  unsigned long long start_ticks = 0;  // the process's start time, clock ticks after boot
  long long written_s = 0;             // when its claimer last wrote the file (Unix time)
  std::string environment;             // environment_key() of the validators it measures under
  std::string op_signature, params_signature;

  std::string describe() const;  // "process 1234 on host"
};

// The claims file of the results file at `output`.
std::filesystem::path claims_path_for(const std::filesystem::path& output);
// A short text that equal environments (the same validators, in any order) share.
std::string environment_key(const Environment& environment);

class TuneClaims {
 public:
  // Drops the claims that no longer count, where the file exists. `refresh_interval`: how often
  // the claims held are written again (tests shorten it).
  TuneClaims(const std::filesystem::path& output, const Environment& environment,
             std::chrono::seconds refresh_interval = kClaimRefreshInterval);
  ~TuneClaims();  // lets go of every claim this object still holds
  TuneClaims(const TuneClaims&) = delete;
  TuneClaims& operator=(const TuneClaims&) = delete;

  // Claims the problem for this process. nullopt: it is ours to tune (also where claims are off);
  // otherwise who is tuning it now.
  std::optional<std::string> claim(const std::string& op_signature,
                                   const std::string& params_signature);
  void release(const std::string& op_signature, const std::string& params_signature);

  const std::filesystem::path& path() const { return path_; }
  // Why claims are off for this run ("" while they work): a lock held too long, or no way to tell
  // this process apart. After it, every claim succeeds without a look at the file.
  std::string off_reason() const;
  // The last error of the file ("" if none): it could not be opened, read or written when a claim
  // went ahead without it, a release or a refresh was to be written, or no refresher thread could
  // start. The next claim, release or refresh tries again.
  std::string last_error() const;
  // What a run says at its end where claims did not always work ("" where they did): that a
  // problem may have been measured twice, and why.
  std::string sharing_note() const;

 private:
  // Reads the live claims under the lock, lets `change` edit them, and writes them back (or
  // removes the file when none are left). False where claims are off. The caller holds mutex_.
  bool update(const std::function<void(std::vector<TuneClaim>&)>& change);
  // The refresher thread's loop: writes the claims held again every refresh_interval_.
  void keep_alive();

  std::filesystem::path path_;
  TuneClaim self_;                // this process and environment, without a problem
  std::filesystem::path output_;  // whose permission bits a new claims file takes
  std::chrono::seconds refresh_interval_;
  std::vector<std::pair<std::string, std::string>> held_;
  // Released while the file could not be written: removed by the next write that succeeds.
  std::vector<std::pair<std::string, std::string>> unreleased_;
  std::string off_reason_, last_error_;

  // The run claims and releases while the refresher writes: one of them at a time.
  mutable std::mutex mutex_;
  std::condition_variable stop_refreshing_;
  bool stopping_ = false;
  std::thread refresher_;  // started with the first claim
};

}  // namespace gemmtune
