#include "solutions/cpu/register_cpu.hpp"

#include "solutions/cpu/blocked_solution.hpp"
#include "solutions/cpu/default_solution.hpp"
#include "solutions/cpu/openblas_solution.hpp"

namespace gemmtune::cpu {
namespace {

class CpuProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(make_default_solution());
    for (const auto& tile : blocked_tiles()) out.push_back(make_blocked_solution(tile));
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    if (name == kDefaultSolutionName) return make_default_solution();
    if (auto tile = parse_blocked_solution_name(name)) return make_blocked_solution(*tile);
    return nullptr;
  }
};

class OpenBlasProvider final : public SolutionProvider {
 public:
  std::string_view name() const override { return "openblas"; }
  std::string_view backend() const override { return "cpu"; }
  std::vector<std::unique_ptr<Solution>> enumerate(const Problem&, const SearchOptions&) override {
    std::vector<std::unique_ptr<Solution>> out;
    out.push_back(make_openblas_solution());
    return out;
  }
  std::unique_ptr<Solution> from_name(const Problem&, std::string_view name) override {
    return name == kOpenBlasSolutionName ? make_openblas_solution() : nullptr;
  }
};

}  // namespace

std::shared_ptr<SolutionProvider> make_cpu_provider() { return std::make_shared<CpuProvider>(); }
std::shared_ptr<SolutionProvider> make_openblas_provider() {
  return std::make_shared<OpenBlasProvider>();
}

}  // namespace gemmtune::cpu

namespace gemmtune {

void register_cpu_solutions(Registry& registry) {
  registry.add(cpu::make_cpu_provider());
  registry.add(cpu::make_openblas_provider());
}

}  // namespace gemmtune
