// The coordinator of a multi-device run: one worker process per device (worker_main.hpp), fed
// from one shared queue, largest problems first (work_queue.hpp), with every fault contained.
//
// Contract:
// - Workers are started from an argument vector (worker_command.hpp) and report their device,
//   tuning options and validators first. A device whose worker cannot start, reports other tuning
//   options, or another environment than the first device's (the gathered file holds one) takes no
//   work; the run goes on with the others, and fails as bad input only if none started.
// - A device retired, at the start or later, is lost to the run: what every device tuned is kept
//   and gathered, but the run is not complete (TuneSummary::lost_devices), even where the others
//   tuned every problem, so that a device asked for that took no part is never a plain success.
// - Resume: problems already in any output of this run for the run's environment — the per-device
//   files, the gathered file, or the database — are skipped. An output this run would write that
//   holds another environment refuses the run (ValidatorMismatchError) before anything is tuned.
// - Faults: a worker that exits, crashes, is killed, breaks the protocol, loses its device or
//   spends more than `problem_timeout_s` on one problem (then it is killed) loses only the problem
//   in flight — everything it finished is on disk already. That problem goes back to the queue;
//   one that has killed two workers is reported failed with both reasons. A device's worker is
//   restarted up to `max_worker_restarts` times; a device that lost its GPU, or whose worker
//   cannot start again, is retired. When no device is left, what is still waiting is reported
//   failed with the reasons. Every problem ends in exactly one of: tuned, failed (with why),
//   already tuned.
// - Stop (request_tune_stop, e.g. SIGINT): nothing more is handed out; problems in flight finish;
//   the rest is reported as interrupted. A second request kills the workers in flight; their
//   problems are interrupted too (unless their winner was already saved). A worker still starting
//   holds no problem and is killed at the first request; one that is ready is let go (end of
//   input). A request while the workers start — between two spawns or while waiting for them to
//   be ready — ends the run at once that way: every problem is reported interrupted, and nothing
//   is gathered (nothing new was tuned).
// - Other runs on the same output (tune_claims.hpp): each problem is claimed before it is handed
//   to a device and let go once its result is in; one another run has saved is counted as already
//   tuned, one another run is tuning is deferred to the end and taken up if that run lets go of
//   it without a result. CSV: the gathered file's claims (and, where `-o` is a device's file, the
//   one-device run's), and the per-device, gathered and one-device files are searched; SQLite: the
//   database's claims and rows.
// - At the end, CSV outputs are gathered into `_full0` and its copies (gather.hpp); a SQLite
//   output records the run.
#pragma once

#include <string>
#include <vector>

#include "db/untuned_file.hpp"
#include "drivers/tune_run.hpp"

namespace gemmtune {

void run_multi_tune(const TuneOptions& options, const std::vector<UntunedEntry>& entries,
                    TuneSummary& summary, TuneObserver& observer, const std::string& command_line);

}  // namespace gemmtune
