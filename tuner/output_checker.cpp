#include "tuner/output_checker.hpp"

namespace gemmtune {

OutputChecker::OutputChecker(Backend& backend, OperandSets& sets, const Problem& problem,
                             const NumericalCheckOptions& options)
    : backend_(backend), sets_(sets), problem_(problem), options_(options) {}

CheckResult OutputChecker::take_reference() {
  backend_.synchronize();
  if (auto rms = backend_.output_rms(problem_, sets_.check_output())) {
    device_reference_ = sets_.copy_check_output();
    tolerance_ = tolerance_for_rms(problem_, options_, *rms);
    if (auto self = backend_.compare_outputs(problem_, *device_reference_, *device_reference_,
                                             tolerance_)) {
      return *self;
    }
    device_reference_.reset();  // the backend measures but cannot compare: use the host
  }
  host_reference_ = sets_.read_check_output();
  tolerance_ = tolerance_for(problem_, options_, host_reference_);
  return compare_outputs(problem_, host_reference_, host_reference_, tolerance_);
}

CheckResult OutputChecker::check_candidate() {
  backend_.synchronize();
  if (device_reference_) {
    if (auto result = backend_.compare_outputs(problem_, *device_reference_, sets_.check_output(),
                                               tolerance_)) {
      return *result;
    }
  }
  // The backend took the reference on the device but declined this comparison: read it once.
  if (host_reference_.empty() && device_reference_) {
    host_reference_ =
        backend_.read_as_double(*device_reference_, problem_.c_type, problem_.c_elements());
  }
  return compare_outputs(problem_, host_reference_, sets_.read_check_output(), tolerance_);
}

}  // namespace gemmtune
