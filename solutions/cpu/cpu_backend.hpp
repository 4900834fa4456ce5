// CpuBackend: the host as a gemmtune Backend.
//
// Properties are read from the system: the CPU model from /proc/cpuinfo, online cores, the
// last-level cache from sysconf or /sys/devices/system/cpu/cpu0/cache (largest level found; 0 when
// the system says nothing, which turns default rotation off rather than guessing), and memory.
// Buffers are 64-byte aligned host allocations; the timer is a steady clock (the work has finished
// when `run` returns); the cache flush writes and reads a buffer of twice the LLC.
#pragma once

#include <memory>
#include <vector>

#include "tuner/backend.hpp"

namespace gemmtune::cpu {

class CpuBackend final : public Backend {
 public:
  CpuBackend();

  const DeviceProperties& properties() const override { return properties_; }
  // CPU_MODEL, CPU_CORES, LAST_LEVEL_CACHE_BYTES, OPENBLAS_CONFIG.
  Environment versions() const override;
  void* stream() const override { return nullptr; }
  std::size_t available_memory_bytes() const override;

  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void fill_random(Buffer& buffer, DType dtype, std::int64_t elements, std::uint64_t seed) override;
  void fill_bytes(Buffer& buffer, unsigned char value) override;
  void copy(Buffer& dst, const Buffer& src, std::size_t bytes) override;
  std::vector<double> read_as_double(const Buffer& src, DType dtype, std::int64_t elements) override;
  void synchronize() override {}
  void flush_cache() override;
  std::unique_ptr<IterationTimer> make_timer(TimingMode mode) override;

 private:
  DeviceProperties properties_;
  std::unique_ptr<Buffer> flush_buffer_;  // allocated on the first flush
  unsigned char flush_round_ = 0;         // a new value each flush, so every line is written
};

// System probes, exposed for tests.
std::string cpu_model_name();
std::size_t last_level_cache_bytes();
std::size_t physical_memory_bytes();
std::string openblas_config();

}  // namespace gemmtune::cpu
