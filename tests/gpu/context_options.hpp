// Options for a Context in a GPU test: CUDA device 0, its files in a directory of the test's own
// (made empty), its messages appended to a string the test reads.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "gemmtune/gemmtune.hpp"

namespace gemmtune::gpu_test {

// `log_mutex` and `logs` must outlive every Context made with the options.
inline Options context_options_in(const std::filesystem::path& dir, std::mutex& log_mutex,
                                  std::string& logs) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Options options;
  options.backend = "cuda";
  options.insert_device_ordinal = false;
  options.filename = (dir / "results.csv").string();
  options.untuned_filename = (dir / "untuned.csv").string();
  options.log = [&](std::string_view m) {
    const std::lock_guard lock(log_mutex);
    logs += std::string(m) + "\n";
  };
  return options;
}

}  // namespace gemmtune::gpu_test
