// The worker protocol: every message survives a round trip, whatever its text holds (tabs,
// newlines, backslashes), and malformed lines are refused with a reason.
#include "drivers/multi/worker_protocol.hpp"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

WorkerMessage round_trip(const WorkerMessage& m) {
  const std::string line = encode_message(m);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  const auto decoded = decode_message(line);
  EXPECT_TRUE(decoded.message) << decoded.error;
  return decoded.message.value_or(WorkerMessage{});
}

TEST(WorkerProtocol, ReadyCarriesDeviceTuningAndValidators) {
  WorkerMessage m;
  m.kind = WorkerMessage::Kind::Ready;
  m.text = "cpu device 1: AMD EPYC";
  m.tuning = "max_tuning_duration_ms=1\nseed=42\n";
  m.environment.set("OPENBLAS_CONFIG", "OpenBLAS 0.3.21\tDYNAMIC_ARCH\\x");
  m.environment.set("GEMMTUNE_VERSION", "0.1.0");
  const auto back = round_trip(m);
  EXPECT_EQ(back.kind, WorkerMessage::Kind::Ready);
  EXPECT_EQ(back.text, m.text);
  EXPECT_EQ(back.tuning, m.tuning);
  EXPECT_EQ(back.environment, m.environment);
  EXPECT_EQ(back.environment.entries(), m.environment.entries());
}

TEST(WorkerProtocol, OkCarriesExactStatistics) {
  WorkerMessage m;
  m.kind = WorkerMessage::Kind::Ok;
  m.key = "GemmTunableOp_float_NN,nn_64_64_64_ld_64_64_64";
  m.text = "Cpu_OpenBLAS";
  m.winner = {37, 0.1 / 3, 0.034, 0.0301, 0.09, 1e-7};
  m.reference = {10, 6.25, 6.5, 6.0, 7.0, 0.25};
  m.elapsed_s = 1.0 / 7;
  const auto back = round_trip(m);
  EXPECT_EQ(back.key, m.key);
  EXPECT_EQ(back.text, m.text);
  EXPECT_EQ(back.winner.iterations, 37);
  EXPECT_EQ(back.winner.median_ms, m.winner.median_ms);  // bit for bit
  EXPECT_EQ(back.winner.stddev_ms, m.winner.stddev_ms);
  EXPECT_EQ(back.reference.median_ms, 6.25);
  EXPECT_EQ(back.elapsed_s, m.elapsed_s);
}

TEST(WorkerProtocol, ReasonsKeepTheirLines) {
  for (const auto kind : {WorkerMessage::Kind::Failed, WorkerMessage::Kind::Fatal}) {
    WorkerMessage m;
    m.kind = kind;
    m.key = "k,p";
    m.text = "line one\nline\ttwo \\n not an escape\r";
    const auto back = round_trip(m);
    EXPECT_EQ(back.kind, kind);
    EXPECT_EQ(back.text, m.text);
  }
  WorkerMessage e;
  e.kind = WorkerMessage::Kind::Error;
  e.text = "--device 3: this machine has 2 CUDA GPU(s), 0 to 1";
  EXPECT_EQ(round_trip(e).text, e.text);
}

TEST(WorkerProtocol, RefusesMalformedLines) {
  for (const char* bad : {"", "hello", "ok\tk,p\tsol", "ok\tk,p\tsol\t1,2\t1,2,3,4,5,6\t0",
                          "ok\tk,p\tsol\t1,2,3,4,5,6\t1,2,3,4,5,6\tx", "failed\tk,p", "error",
                          "ready\tdev", "ready\tdev\ttuning\tKEY", "failed\tk\\q\tr"}) {
    const auto decoded = decode_message(bad);
    EXPECT_FALSE(decoded.message) << bad;
    EXPECT_FALSE(decoded.error.empty()) << bad;
  }
}

TEST(WorkerProtocol, AcceptsACarriageReturn) {
  const auto decoded = decode_message("error\tno GPU\r");
  ASSERT_TRUE(decoded.message);
  EXPECT_EQ(decoded.message->text, "no GPU");
}

}  // namespace
}  // namespace gemmtune
