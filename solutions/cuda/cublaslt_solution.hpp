// LtSolution: one cuBLASLt algorithm for one problem, as a gemmtune::Solution.
//
// It is what the cublaslt provider offers (named after the algorithm's configuration) and what
// `Default` is for GemmAndBias and ScaledGemm (the heuristic's first proposal). An algorithm that
// cannot be rebuilt or no longer passes cublasLtMatmulAlgoCheck is still a solution: one whose
// supports() says why, so that the lookup can fall back to Default and name the reason.
#pragma once

#include <cublasLt.h>

#include <memory>
#include <optional>
#include <string>

#include "solutions/cuda/cublaslt_algo_name.hpp"
#include "solutions/cuda/cublaslt_matmul.hpp"
#include "tuner/solution.hpp"

namespace gemmtune::cuda {

class LtSolution final : public Solution {
 public:
  LtSolution(std::string name, std::shared_ptr<LtMatmul> matmul, const cublasLtMatmulAlgo_t& algo,
             std::size_t workspace_bytes);
  // A solution that cannot run this problem, and why.
  LtSolution(std::string name, const Problem& problem, std::string why_not);

  const std::string& name() const override { return name_; }
  Support supports(const Problem& problem) const override;
  std::size_t workspace_bytes(const Problem&) const override { return workspace_bytes_; }
  RunStatus run(const Problem& problem, const Operands& operands, void* stream) override;

  // The algorithm and its configuration; empty for an unsupported solution.
  const std::optional<cublasLtMatmulAlgo_t>& algo() const { return algo_; }
  std::optional<AlgoConfig> config() const;

 private:
  std::string name_;
  Problem problem_;
  std::shared_ptr<LtMatmul> matmul_;
  std::optional<cublasLtMatmulAlgo_t> algo_;
  std::size_t workspace_bytes_ = 0;
  LtMatmul::Alignments alignments_;  // of algo_, read once
  std::string why_not_;
};

}  // namespace gemmtune::cuda
