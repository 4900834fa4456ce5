// How the coordinator starts the worker of one device: the argument vector of
// `gemmtune tune --worker` (never a shell command line) and the environment it adds.
//
// Contract:
// - Every option that decides how a problem is tuned is passed explicitly, so that a worker tunes
//   exactly as a single-device run with the same options would; the worker reports the tuning
//   options it understood (describe_tuning) and the coordinator refuses a worker that differs.
// - The worker's output is its device's results file (or the run's database); its backend and
//   device are the run's.
// - CPU workers share the machine's cores: each gets OPENBLAS_NUM_THREADS and OMP_NUM_THREADS of
//   cores / workers (at least 1) unless the user set them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "drivers/multi/shard.hpp"
#include "drivers/multi/worker_process.hpp"
#include "drivers/tune_options.hpp"

namespace gemmtune {

std::vector<std::string> worker_arguments(const std::string& executable, const TuneOptions& options,
                                          int ordinal, const std::filesystem::path& output);

WorkerProcess::EnvironmentOverrides worker_environment(const TuneOptions& options, int cores,
                                                       const EnvironmentLookup& getenv);

}  // namespace gemmtune
