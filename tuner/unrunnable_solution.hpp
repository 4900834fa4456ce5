// UnrunnableSolution: a named solution that never runs, carrying why. It stands in where a caller
// needs a Solution but none can be had: a provider whose enumeration failed (the tuner then
// reports it as unsupported with the provider's error), or an application's problem that not
// even Default can run (every call then fails with the reason).
#pragma once

#include <string>
#include <utility>

#include "tuner/solution.hpp"

namespace gemmtune {

class UnrunnableSolution final : public Solution {
 public:
  UnrunnableSolution(std::string name, std::string reason)
      : name_(std::move(name)), reason_(std::move(reason)) {}
  const std::string& name() const override { return name_; }
  Support supports(const Problem&) const override { return Support::no(reason_); }
  RunStatus run(const Problem&, const Operands&, void*) override {
    return RunStatus::failure(reason_);
  }

 private:
  std::string name_;
  std::string reason_;
};

}  // namespace gemmtune
