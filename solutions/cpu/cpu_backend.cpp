#include "solutions/cpu/cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/utsname.h>

#include "solutions/cpu/elements.hpp"
#include "solutions/cpu/openblas.hpp"
#include "solutions/cpu/random_fill.hpp"
#include "tuner/error.hpp"

namespace gemmtune::cpu {
namespace {

constexpr std::size_t kAlignment = 64;  // a cache line, and enough for any vector load

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

class HostBuffer final : public Buffer {
 public:
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes) {
    const std::size_t rounded = std::max<std::size_t>((bytes + kAlignment - 1) / kAlignment, 1) * kAlignment;
    data_.reset(std::aligned_alloc(kAlignment, rounded));
    if (!data_) GEMMTUNE_THROW("cannot allocate {} bytes of host memory", bytes);
  }
  void* data() const override { return data_.get(); }
  std::size_t bytes() const override { return bytes_; }

 private:
  std::size_t bytes_;
  std::unique_ptr<void, FreeDeleter> data_;
};

class SteadyClockTimer final : public IterationTimer {
 public:
  void begin_iteration() override { start_ = Clock::now(); }
  void end_iteration() override {
    samples_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start_).count());
  }
  std::vector<double> collect_ms() override { return std::exchange(samples_, {}); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
  std::vector<double> samples_;
};

std::size_t read_size_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  std::size_t value = std::strtoull(text.c_str(), nullptr, 10);
  switch (text.back()) {
    case 'K': value <<= 10; break;
    case 'M': value <<= 20; break;
    case 'G': value <<= 30; break;
    default: break;
  }
  return value;
}

}  // namespace

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        if (!value.empty()) return value;
      }
    }
  }
  utsname u{};
  return uname(&u) == 0 ? std::string(u.machine) : std::string("unknown CPU");
}

std::size_t last_level_cache_bytes() {
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE); l3 > 0) return static_cast<std::size_t>(l3);
#endif
  // sysconf knows no L3 (some ARM and virtual machines): take the largest cache /sys lists.
  std::size_t largest = 0;
  std::error_code ec;
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    largest = std::max(largest, read_size_file(entry.path() / "size"));
  }
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (largest == 0) {
    if (const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) largest = static_cast<std::size_t>(l2);
  }
#endif
  return largest;
}

std::size_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

std::string openblas_config() { return openblas_config_string(); }

CpuBackend::CpuBackend() {
  properties_.backend = "cpu";
  properties_.ordinal = 0;
  properties_.name = cpu_model_name();
  utsname u{};
  properties_.architecture = uname(&u) == 0 ? u.machine : "unknown";
  properties_.memory_bytes = physical_memory_bytes();
  properties_.last_level_cache_bytes = last_level_cache_bytes();
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  properties_.compute_units = cores > 0 ? static_cast<int>(cores) : 1;
}

Environment CpuBackend::versions() const {
  Environment env;
  env.set("CPU_MODEL", properties_.name);
  env.set("CPU_CORES", std::to_string(properties_.compute_units));
  env.set("LAST_LEVEL_CACHE_BYTES", std::to_string(properties_.last_level_cache_bytes));
  env.set("OPENBLAS_CONFIG", openblas_config());
  return env;
}

std::size_t CpuBackend::available_memory_bytes() const {
  // MemAvailable is what can be allocated without swapping; the total would invite the OOM killer.
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    std::size_t kib = 0;
    in >> kib;
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(1 << 10, '\n');
  }
  return properties_.memory_bytes;
}

std::unique_ptr<Buffer> CpuBackend::allocate(std::size_t bytes) {
  return std::make_unique<HostBuffer>(bytes);
}

void CpuBackend::fill_random(Buffer& buffer, DType dtype, std::int64_t elements, std::uint64_t seed) {
  GEMMTUNE_EXPECT(static_cast<std::size_t>(elements) * element_bytes(dtype) <= buffer.bytes(),
                  "{} elements of {} fit in {} bytes", elements, info(dtype).cli_name, buffer.bytes());
  cpu::fill_random(buffer.data(), dtype, elements, seed, openblas_thread_count());
}

void CpuBackend::fill_bytes(Buffer& buffer, unsigned char value) {
  std::memset(buffer.data(), value, buffer.bytes());
}

void CpuBackend::copy(Buffer& dst, const Buffer& src, std::size_t bytes) {
  GEMMTUNE_EXPECT(bytes <= dst.bytes() && bytes <= src.bytes(), "copy of {} bytes fits", bytes);
  std::memcpy(dst.data(), src.data(), bytes);
}

std::vector<double> CpuBackend::read_as_double(const Buffer& src, DType dtype, std::int64_t elements) {
  GEMMTUNE_EXPECT(static_cast<std::size_t>(elements) * element_bytes(dtype) <= src.bytes(),
                  "{} elements of {} fit in {} bytes", elements, info(dtype).cli_name, src.bytes());
  const bool complex = info(dtype).is_complex;
  std::vector<double> out(static_cast<std::size_t>(elements) * (complex ? 2 : 1));
  for (std::int64_t i = 0; i < elements; ++i) {
    if (complex) {
      const auto v = load_complex(dtype, src.data(), i);
      out[static_cast<std::size_t>(2 * i)] = v.real();
      out[static_cast<std::size_t>(2 * i + 1)] = v.imag();
    } else {
      out[static_cast<std::size_t>(i)] = load_real(dtype, src.data(), i);
    }
  }
  return out;
}

void CpuBackend::flush_cache() {
  const std::size_t bytes = std::max<std::size_t>(2 * properties_.last_level_cache_bytes, 64u << 20);
  if (!flush_buffer_) flush_buffer_ = allocate(bytes);
  // Write every line (evicting whatever was cached) and read it back through a volatile sink so
  // that the compiler cannot drop the work.
  auto* p = static_cast<unsigned char*>(flush_buffer_->data());
  std::memset(p, ++flush_round_, bytes);
  volatile unsigned char sink = 0;
  for (std::size_t i = 0; i < bytes; i += 4096) sink = sink + p[i];
}

std::unique_ptr<IterationTimer> CpuBackend::make_timer(TimingMode /*mode*/) {
  return std::make_unique<SteadyClockTimer>();  // the host runs each iteration as it is issued
}

}  // namespace gemmtune::cpu
