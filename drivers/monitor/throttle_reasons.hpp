// The clocks event reasons NVML reports (formerly "clocks throttle reasons"): why the GPU runs
// below its highest clock at this moment, one bit each. The values are NVML's
// (nvmlClocksEventReason* in nvml.h, stable across drivers).
//
// Each reason is a *slowdown* (the clocks are held down by power or heat: a measurement taken
// then is slower than the device can be) or *benign* (idle, clocks set by the user or by a sync
// boost group, display clocks): listed in the summary, but not called throttling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmtune::monitor {

enum class ReasonKind { Benign, Slowdown };

struct ThrottleReason {
  std::uint64_t bit;
  std::string name;     // NVML's name without the prefix: "SwPowerCap"
  std::string meaning;  // a few words for the report
  ReasonKind kind;
};

// Every reason NVML defines, in bit order.
const std::vector<ThrottleReason>& throttle_reasons();

// The known reason of one bit; a bit NVML did not define when this was written is named
// "Unknown0x200" and counted benign.
ThrottleReason reason_of_bit(std::uint64_t bit);

// The names of the bits set in `mask`, in bit order ("SwPowerCap,HwSlowdown"; "" for 0).
std::string reason_names(std::uint64_t mask);

// The bits of `mask` that are slowdowns.
std::uint64_t slowdown_bits(std::uint64_t mask);

}  // namespace gemmtune::monitor
