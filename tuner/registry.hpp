// Registry: the providers the engine may enumerate. Backends register their providers through
// it (see solutions/*/register_*.hpp), and so can applications, without the engine naming them.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/solution.hpp"

namespace gemmtune {

// What follows a provider's name in the stand-in for its failed enumeration (Registry::enumerate).
inline constexpr std::string_view kEnumerationFailedSuffix = " (enumeration failed)";

class Registry {
 public:
  // Adds a provider; a later provider with the same name replaces the earlier one.
  void add(std::shared_ptr<SolutionProvider> provider);
  // The providers whose solutions run on `backend`, in registration order.
  std::vector<std::shared_ptr<SolutionProvider>> providers_for(std::string_view backend) const;

  // Every solution of every provider for `backend`, enumerated for the problem. A provider whose
  // enumeration throws (other than DeviceError) is represented by an UnrunnableSolution named
  // "<provider> (enumeration failed)" that carries the error; the others' candidates stay.
  std::vector<std::unique_ptr<Solution>> enumerate(std::string_view backend, const Problem& problem,
                                                   const SearchOptions& options) const;
  // Throws InputError naming the first of `names` that no provider of `backend` has, with the
  // providers it does have (a misspelt --providers would otherwise leave only Default to search).
  void require_providers(std::string_view backend, const std::vector<std::string>& names) const;
  // The solution a stored name denotes, or nullptr when no provider knows it.
  std::unique_ptr<Solution> from_name(std::string_view backend, const Problem& problem,
                                      std::string_view name) const;
  // The `Default` that a tuning under `options` measures (SolutionProvider::reference: a
  // cuBLASLt heuristic's pick depends on the workspace limit), or nullptr when no provider has one.
  std::unique_ptr<Solution> reference(std::string_view backend, const Problem& problem,
                                      const SearchOptions& options) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<SolutionProvider>> providers_;
};

}  // namespace gemmtune
