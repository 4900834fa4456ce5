#include "tuner/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "tuner/error.hpp"
#include "tuner/unrunnable_solution.hpp"

namespace gemmtune {

bool SearchOptions::searches(std::string_view provider) const {
  return providers.empty() ||
         std::find(providers.begin(), providers.end(), provider) != providers.end();
}

void Registry::add(std::shared_ptr<SolutionProvider> provider) {
  // An application's mistake, said as one: dereferenced below, and on every enumeration after.
  if (provider == nullptr) throw std::invalid_argument("a null SolutionProvider cannot be added");
  std::lock_guard lock(mutex_);
  auto same = std::find_if(providers_.begin(), providers_.end(), [&](const auto& p) {
    return p->name() == provider->name() && p->backend() == provider->backend();
  });
  if (same != providers_.end()) {
    *same = std::move(provider);
  } else {
    providers_.push_back(std::move(provider));
  }
}

std::vector<std::shared_ptr<SolutionProvider>> Registry::providers_for(
    std::string_view backend) const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<SolutionProvider>> out;
  for (const auto& p : providers_) {
    if (p->backend() == backend) out.push_back(p);
  }
  return out;
}

std::vector<std::unique_ptr<Solution>> Registry::enumerate(std::string_view backend,
                                                           const Problem& problem,
                                                           const SearchOptions& options) const {
  std::vector<std::unique_ptr<Solution>> out;
  for (const auto& provider : providers_for(backend)) {
    try {
      if (options.searches(provider->name())) {
        for (auto& s : provider->enumerate(problem, options)) out.push_back(std::move(s));
      } else if (auto reference = provider->reference(problem, options)) {
        out.push_back(std::move(reference));
      }
    } catch (const DeviceError&) {
      throw;  // the device is gone: no other provider can do better
    } catch (const std::exception& e) {
      // One provider's failure (a library call that errs on this problem) must not end the sweep
      // of the others; the stand-in carries the error into the report as unsupported.
      out.push_back(std::make_unique<UnrunnableSolution>(
          fmt::format("{}{}", provider->name(), kEnumerationFailedSuffix), e.what()));
    } catch (...) {
      // An application's provider may throw anything; its failure is still its own.
      out.push_back(std::make_unique<UnrunnableSolution>(
          fmt::format("{}{}", provider->name(), kEnumerationFailedSuffix),
          fmt::format("threw {}", kNotAStdException)));
    }
  }
  return out;
}

void Registry::require_providers(std::string_view backend,
                                 const std::vector<std::string>& names) const {
  std::vector<std::string> known;
  for (const auto& p : providers_for(backend)) known.emplace_back(p->name());
  for (const auto& wanted : names) {
    if (std::find(known.begin(), known.end(), wanted) == known.end()) {
      throw InputError(fmt::format("no provider '{}' on the {} backend; known: {}", wanted, backend,
                                   fmt::join(known, ", ")));
    }
  }
}

std::unique_ptr<Solution> Registry::from_name(std::string_view backend, const Problem& problem,
                                              std::string_view name) const {
  for (const auto& provider : providers_for(backend)) {
    if (auto s = provider->from_name(problem, name)) return s;
  }
  return nullptr;
}

std::unique_ptr<Solution> Registry::reference(std::string_view backend, const Problem& problem,
                                              const SearchOptions& options) const {
  for (const auto& provider : providers_for(backend)) {
    if (auto s = provider->reference(problem, options)) return s;
  }
  return nullptr;
}

}  // namespace gemmtune
