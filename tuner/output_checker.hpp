// OutputChecker: the numerical check of one problem's candidates against Default.
//
// It takes Default's output in the check buffer as the reference and then compares each
// candidate's output with it. Where the backend can compare on the device (Backend::
// compare_outputs), the reference stays there as a device copy and nothing is read back but the
// totals; elsewhere both outputs are read back and compared on the host. Same rule, same result.
#pragma once

#include <memory>
#include <vector>

#include "tuner/backend.hpp"
#include "tuner/numerical_check.hpp"
#include "tuner/operand_sets.hpp"

namespace gemmtune {

class OutputChecker {
 public:
  OutputChecker(Backend& backend, OperandSets& sets, const Problem& problem,
                const NumericalCheckOptions& options);

  // Call after Default ran into the check output. Returns Default compared with itself: a
  // reference with NaN or unwritten elements fails, and is no reference.
  CheckResult take_reference();
  // Call after a candidate ran into the check output.
  CheckResult check_candidate();

  bool on_device() const { return device_reference_ != nullptr; }

 private:
  Backend& backend_;
  OperandSets& sets_;
  const Problem& problem_;
  NumericalCheckOptions options_;
  Tolerance tolerance_;
  std::unique_ptr<Buffer> device_reference_;  // when the backend compares on the device
  std::vector<double> host_reference_;        // otherwise
};

}  // namespace gemmtune
