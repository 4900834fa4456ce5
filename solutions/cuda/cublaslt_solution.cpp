#include "solutions/cuda/cublaslt_solution.hpp"

#include <fmt/format.h>

#include "solutions/cuda/cublaslt_algo_config.hpp"

namespace gemmtune::cuda {

LtSolution::LtSolution(std::string name, std::shared_ptr<LtMatmul> matmul,
                       const cublasLtMatmulAlgo_t& algo, std::size_t workspace_bytes)
    : name_(std::move(name)),
      problem_(matmul->problem()),
      matmul_(std::move(matmul)),
      algo_(algo),
      workspace_bytes_(workspace_bytes),
      alignments_(LtMatmul::required_alignments(algo)) {}

LtSolution::LtSolution(std::string name, const Problem& problem, std::string why_not)
    : name_(std::move(name)), problem_(problem), why_not_(std::move(why_not)) {}

Support LtSolution::supports(const Problem& problem) const {
  if (!algo_) return Support::no(why_not_);
  if (!(problem == problem_)) {
    return Support::no(fmt::format("{} was built for {},{}", name_, problem_.op_signature(),
                                   problem_.params_signature()));
  }
  return Support::yes();
}

RunStatus LtSolution::run(const Problem& problem, const Operands& operands, void* stream) {
  if (const Support s = supports(problem); !s) return RunStatus::failure(s.reason);
  return matmul_->run(*algo_, workspace_bytes_, alignments_, operands,
                      static_cast<cudaStream_t>(stream));
}

std::optional<AlgoConfig> LtSolution::config() const {
  if (!algo_) return std::nullopt;
  return read_config(*algo_);
}

}  // namespace gemmtune::cuda
