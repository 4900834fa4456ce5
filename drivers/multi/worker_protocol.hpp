// The pipe protocol between `gemmtune tune` across several devices (the coordinator) and its
// workers (`gemmtune tune --worker`, one process per device). Text, one message per line, so
// that a person can drive a worker by hand.
//
// Coordinator → worker, on the worker's stdin: one problem per line, written as an untuned-file
// line (`OP_SIG,PARAMS_SIG[,extra...]`). End of input: the worker exits with status 0.
//
// Worker → coordinator, on the worker's stdout; tab-separated fields, in which '\\', tab,
// newline and carriage return are escaped as \\ \t \n \r:
//   ready   DEVICE TUNING KEY VALUE KEY VALUE...  started; TUNING is describe_tuning() of the
//                                                options it got, then its validators
//   ok      OP_SIG,PARAMS_SIG SOLUTION WINNER_STATS DEFAULT_STATS ELAPSED_S
//                                                tuned, and the winner is already on disk;
//                                                STATS = iterations,median,mean,min,max,stddev (ms)
//   failed  OP_SIG,PARAMS_SIG REASON             the tuner could not tune it (not retried)
//   fatal   OP_SIG,PARAMS_SIG REASON             the device is lost; the worker exits
//   error   REASON                               the worker could not start; it exits
// A worker writes nothing else to its stdout (stray output is sent to stderr).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tuner/environment.hpp"
#include "tuner/statistics.hpp"

namespace gemmtune {

struct WorkerMessage {
  enum class Kind { Ready, Ok, Failed, Fatal, Error };
  Kind kind = Kind::Error;
  std::string key;          // "OP_SIG,PARAMS_SIG" for ok, failed, fatal
  std::string text;         // ready: the device; ok: the winning solution; otherwise the reason
  std::string tuning;       // ready
  Environment environment;  // ready
  Statistics winner;        // ok
  Statistics reference;     // ok: Default's statistics
  double elapsed_s = 0;     // ok
};

// One line, without its '\n'.
std::string encode_message(const WorkerMessage& message);

struct DecodedMessage {
  std::optional<WorkerMessage> message;
  std::string error;  // why the line is not a message
};
DecodedMessage decode_message(std::string_view line);

// "OP_SIG,PARAMS_SIG": how messages and reports name a problem.
std::string problem_key(std::string_view op_signature, std::string_view params_signature);

}  // namespace gemmtune
