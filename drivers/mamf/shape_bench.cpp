#include "drivers/mamf/shape_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tuner/error.hpp"

namespace gemmtune::mamf {
namespace {

// A Buffer naming memory someone else owns (the operand sets' C), for Backend::copy.
class BufferView final : public Buffer {
 public:
  BufferView(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  void* data() const override { return data_; }
  std::size_t bytes() const override { return bytes_; }

 private:
  void* data_;
  std::size_t bytes_;
};

}  // namespace

Problem problem_for_shape(const Shape& s, DType dtype) {
  const OpKind op = info(dtype).is_float8 ? OpKind::ScaledGemm : OpKind::Gemm;
  return Problem::make(op, dtype, Transpose::T, Transpose::N, s.n, s.m, s.k);
}

std::size_t flush_bytes(const Backend& backend) {
  return std::max<std::size_t>(std::size_t{256} << 20,
                               2 * backend.properties().last_level_cache_bytes);
}

ShapeBench::ShapeBench(Backend& backend, const Problem& problem, const BenchOptions& options,
                       std::size_t workspace_bytes, Buffer& flush)
    : backend_(backend), problem_(problem), options_(options), flush_(flush) {
  c_bytes_ = static_cast<std::size_t>(problem.c_elements()) * element_bytes(problem.c_type);
  const auto budget = static_cast<std::size_t>(
      static_cast<double>(backend.available_memory_bytes()) * options.memory_fraction);
  const std::size_t set = OperandSets::set_bytes(problem);
  const std::size_t fixed =
      OperandSets::fixed_bytes(problem) + workspace_bytes + (options.rotate ? 0 : c_bytes_);
  const std::size_t for_sets = budget > fixed ? budget - fixed : 0;
  // Rotation: copies covering twice the cache. Otherwise one set; the flush is ours (below).
  plan_ = plan_rotation(set, backend.properties().last_level_cache_bytes, for_sets,
                        options.rotate ? std::nullopt : std::optional<double>(0.0), false,
                        backend.properties().operand_placements);
  if (!plan_.fits) {
    throw InputError(fmt::format("{}: operands need {:.1f} MiB, more than the {:.1f} MiB allowed",
                                 problem.params_signature(),
                                 static_cast<double>(set + fixed) / (1 << 20),
                                 static_cast<double>(budget) / (1 << 20)));
  }
  operands_ = std::make_unique<OperandSets>(backend, problem, plan_, workspace_bytes, options.seed,
                                            1.0, 0.0);
  if (!options.rotate) {
    random_c_ = backend.allocate(c_bytes_);
    backend.fill_random(*random_c_, problem.c_type, problem.c_elements(), options.seed + 7);
  }
}

void ShapeBench::between_iterations(const Operands& operands) {
  if (options_.rotate && !plan_.flush) return;
  backend_.fill_bytes(flush_, 0);  // mamf-finder: l2_cache.zero_()
  if (random_c_) {
    BufferView c(operands.c, c_bytes_);
    backend_.copy(c, *random_c_, c_bytes_);  // mamf-finder: C.copy_(C_rand)
  }
}

Measurement ShapeBench::iterate(Solution& solution, std::int64_t count, std::int64_t skip) {
  Measurement m;
  // As mamf-finder.py times: each iteration runs as issued, its cache flush and C reset (two
  // more device operations) in front of it. The shapes it searches are long enough that the
  // host's launch time is not in the samples.
  auto timer = backend_.make_timer(TimingMode::Immediate);
  void* stream = backend_.stream();
  std::int64_t issued = 0;
  while (issued < count && m.status) {
    const int chunk = static_cast<int>(std::min<std::int64_t>(count - issued, kMaxChunk));
    int ran = 0;
    for (; ran < chunk && m.status; ++ran) {
      const Operands operands = operands_->next();
      between_iterations(operands);
      timer->begin_iteration();
      m.status = solution.run(problem_, operands, stream);
      timer->end_iteration();
    }
    std::vector<double> samples = timer->collect_ms();
    if (!m.status && !samples.empty()) samples.pop_back();  // the failed iteration's
    m.samples_ms.insert(m.samples_ms.end(), samples.begin(), samples.end());
    issued += ran;
  }
  const auto drop = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(skip, 0)),
                                          m.samples_ms.size());
  m.samples_ms.erase(m.samples_ms.begin(),
                     m.samples_ms.begin() + static_cast<std::ptrdiff_t>(drop));
  m.stats = summarize(m.samples_ms);
  return m;
}

Measurement ShapeBench::measure(Solution& solution) {
  // In 64 bits: two counts near INT_MAX would wrap to a negative total, and nothing would run.
  const std::int64_t timed = std::max(options_.iterations, 1);
  const std::int64_t warm = std::max(options_.warmup_iterations, 0);
  return iterate(solution, warm + timed, warm);
}

Measurement ShapeBench::run_for(Solution& solution, double wall_ms) {
  const double wanted = wall_ms_per_iteration_ > 0 ? wall_ms / wall_ms_per_iteration_ : 1.0;
  const int count = static_cast<int>(std::clamp(wanted, 1.0, 1e6));
  const auto start = std::chrono::steady_clock::now();
  Measurement m = iterate(solution, count, 0);
  const double spent =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!m.samples_ms.empty()) {
    wall_ms_per_iteration_ = spent / static_cast<double>(m.samples_ms.size());
  }
  return m;
}

}  // namespace gemmtune::mamf
