#include "drivers/mamf/mamf_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gemmtune::mamf {

std::string describe(const MamfOptions& o) {
  const auto dim = [](const DimSpec& d) {
    return d.is_range() ? fmt::format("range {}", fmt::join(d.range, " "))
                        : fmt::format("{}", fmt::join(d.values, " "));
  };
  return fmt::format(
      "m={}\nn={}\nk={}\ndtype={}\nbackend={}\ndevice={}\nnum_iterations={}\n"
      "num_warmup_iterations={}\ncache={}\nseed={}\nmax_warmup_seconds={}\ntuned={}\n"
      "results={}\nmax_finalists={}\nconfirmation_contenders={}\nnumerical_check={}\nsustained={}\nmonitor_interval_ms={}\n"
      "peak_tflops={}\n"
      "device_spec={}\nstore={}\nplot={}\noutput_file={}\n{}",
      dim(o.m), dim(o.n), dim(o.k), info(o.dtype).cli_name, to_string(o.backend), o.device, o.bench.iterations,
      o.bench.warmup_iterations, o.bench.rotate ? "rotate" : "flush", o.bench.seed,
      o.warmup.max_seconds, o.tuned, o.results_file, o.tuner.timing.max_finalists,
      o.tuner.timing.confirmation_contenders, to_string(o.tuner.check), o.sustained_seconds, o.monitor_interval_ms,
      o.peak_tflops ? fmt::format("{}", *o.peak_tflops) : std::string("from the device spec"),
      o.device_spec ? fmt::format("{} ({})", o.device_spec->name, o.device_spec->origin)
                    : std::string("none"),
      o.store_file, o.plot_file, o.output_file,
      o.config.empty() ? std::string() : "# effective configuration\n" + o.config);
}

}  // namespace gemmtune::mamf
