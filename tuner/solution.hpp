// Solution: one candidate implementation of a GEMM; SolutionProvider: the solutions one library
// offers for a problem.
//
// Expected outcomes are values: `supports` says no with a reason, `run` returns a failed
// RunStatus with the library's message. The tuner still catches exceptions from `run` so that a
// misbehaving candidate never ends a sweep.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/problem.hpp"

namespace gemmtune {

// Device pointers a solution reads and writes, laid out as the Problem says.
struct Operands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const void* bias = nullptr;      // GemmAndBias, ScaledGemm with a bias: m elements
  const float* scale_a = nullptr;  // ScaledGemm: one float (or m for row-wise)
  const float* scale_b = nullptr;  // ScaledGemm: one float (or n for row-wise)
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  double alpha = 1.0;
  double beta = 0.0;
};

struct Support {
  bool supported = true;
  std::string reason;

  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
  explicit operator bool() const { return supported; }
};

struct RunStatus {
  bool ok = true;
  std::string error;
  // The solution refused this call's operands (a pointer less aligned than it needs, say) and
  // enqueued nothing, so C is untouched and another solution may run the call instead. A tuned
  // solution measured on aligned buffers meets such operands only in an application's calls.
  bool refused = false;

  static RunStatus success() { return {}; }
  static RunStatus failure(std::string why) { return {false, std::move(why)}; }
  static RunStatus refusal(std::string why) { return {false, std::move(why), true}; }
  explicit operator bool() const { return ok; }
};

class Solution {
 public:
  virtual ~Solution() = default;
  // Stable across runs and versions, unique, without a comma or control character (a tuning
  // fails a candidate whose name a results line cannot hold); what a results file stores.
  // "Default" is the library's default call and the numerical reference.
  virtual const std::string& name() const = 0;
  virtual Support supports(const Problem& problem) const = 0;
  virtual std::size_t workspace_bytes(const Problem&) const { return 0; }
  // Enqueues the GEMM on `stream` (nullptr on the CPU) and returns without waiting. As in BLAS,
  // beta = 0 reads no C, and alpha = 0 should read no product (gemmtune's own solutions do;
  // cuBLAS and cuBLASLt compute 0·(A·B), NaN included, so the tuner cannot require it of a
  // candidate whose reference is cuBLAS's Default). The tuner checks a candidate under the
  // tuned scalars and under kOtherCheckAlpha / kOtherCheckBeta (numerical_check.hpp); a solution
  // that cannot run some scalars refuses them (RunStatus::refusal) and Default runs such calls.
  virtual RunStatus run(const Problem& problem, const Operands& operands, void* stream) = 0;
};

inline constexpr std::string_view kDefaultSolutionName = "Default";

// How far a provider's enumeration goes.
enum class SearchSpace { Heuristic, Exhaustive };

struct SearchOptions {
  SearchSpace space = SearchSpace::Heuristic;
  std::size_t max_workspace_bytes = 32u << 20;
  // The providers whose candidates are searched, by name; empty = all. Another provider still
  // contributes its `Default`, the reference every tuning needs (so "cublaslt" alone searches
  // cuBLASLt against cuBLAS's Default).
  std::vector<std::string> providers;

  bool searches(std::string_view provider) const;
};

class SolutionProvider {
 public:
  virtual ~SolutionProvider() = default;
  virtual std::string_view name() const = 0;     // "cpu", "openblas", "cublas", "cublaslt", ...
  virtual std::string_view backend() const = 0;  // the DeviceProperties::backend it runs on
  // The candidates for a problem; unsupported ones may be included (the tuner records why).
  virtual std::vector<std::unique_ptr<Solution>> enumerate(const Problem& problem,
                                                           const SearchOptions& options) = 0;
  // Rebuilds a solution from a stored name, or nullptr when the name is not this provider's.
  virtual std::unique_ptr<Solution> from_name(const Problem& problem, std::string_view name) = 0;
  // Its `Default` for a tuning that does not search this provider (SearchOptions::providers):
  // the reference, under the search's limits. By default, from_name's.
  virtual std::unique_ptr<Solution> reference(const Problem& problem, const SearchOptions&) {
    return from_name(problem, kDefaultSolutionName);
  }
};

}  // namespace gemmtune
