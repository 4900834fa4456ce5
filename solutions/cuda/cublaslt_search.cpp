#include "solutions/cuda/cublaslt_search.hpp"

#include <array>
#include <cstring>
#include <map>
#include <set>
#include <variant>

#include "solutions/cuda/cublas_handle.hpp"
#include "solutions/cuda/cublaslt_algo_config.hpp"
#include "solutions/cuda/cublaslt_rebuild.hpp"

namespace gemmtune::cuda {
namespace {

// Split-K counts tried around the heuristic's proposals, and in the exhaustive search.
constexpr std::array kVariantSplits{1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32};
constexpr std::array kExhaustiveSplits{1, 2, 4, 8, 16, 32};
// A split must leave each part at least this much of k.
constexpr std::int64_t kMinKPerSplit = 16;
constexpr std::array<std::uint32_t, 3> kReductions{CUBLASLT_REDUCTION_SCHEME_INPLACE,
                                                   CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                                                   CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE};
// Cluster shapes tried for algorithms that take one (AUTO is always tried).
constexpr std::array<std::uint16_t, 5> kClusters{
    CUBLASLT_CLUSTER_SHAPE_1x1x1, CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1,
    CUBLASLT_CLUSTER_SHAPE_2x2x1, CUBLASLT_CLUSTER_SHAPE_4x1x1};

// Reduction schemes for a split count: none when not split, the allowed ones otherwise.
std::vector<std::uint32_t> reductions_for(int split, std::uint32_t mask) {
  if (split == 1) return {CUBLASLT_REDUCTION_SCHEME_NONE};
  std::vector<std::uint32_t> out;
  for (std::uint32_t r : kReductions) {
    if ((mask & r) != 0) out.push_back(r);
  }
  return out;
}

class CandidateSet {
 public:
  CandidateSet(const LtMatmul& matmul, const LtSearchLimits& limits, LtSearchStats& stats)
      : matmul_(matmul), limits_(limits), stats_(stats), rebuilder_(matmul) {}

  AlgoRebuilder& rebuilder() { return rebuilder_; }

  // Rebuilds, checks and keeps a configuration; false when it is not usable (or seen before and
  // not usable). `rebuilt` receives the algorithm when it is.
  bool offer(const AlgoConfig& config, cublasLtMatmulAlgo_t* rebuilt = nullptr) {
    auto [it, inserted] = tried_.emplace(config, -1);
    if (!inserted) {
      if (it->second >= 0 && rebuilt != nullptr) *rebuilt = out_[it->second].algo;
      return it->second >= 0;
    }
    auto built = rebuilder_.build(config);
    if (!std::holds_alternative<cublasLtMatmulAlgo_t>(built)) return false;
    const auto& algo = std::get<cublasLtMatmulAlgo_t>(built);
    std::size_t workspace = 0;
    ++stats_.checks;
    if (matmul_.check(algo, &workspace) != CUBLAS_STATUS_SUCCESS) return false;
    if (workspace > limits_.max_workspace_bytes) return false;
    it->second = static_cast<int>(out_.size());
    out_.push_back({config, algo, workspace});
    if (rebuilt != nullptr) *rebuilt = algo;
    return true;
  }

  long checks() const { return stats_.checks; }
  std::size_t size() const { return out_.size(); }
  std::vector<LtCandidate> take() { return std::move(out_); }

 private:
  const LtMatmul& matmul_;
  const LtSearchLimits& limits_;
  LtSearchStats& stats_;
  AlgoRebuilder rebuilder_;
  std::map<AlgoConfig, int> tried_;  // index into out_, or -1 when unusable
  std::vector<LtCandidate> out_;
};

bool split_fits(int split, std::int64_t k) {
  return split == 1 || k / split >= kMinKPerSplit;
}

// `splits`: whether split counts above 1 are offered (split_variants_pay).
void add_variants(CandidateSet& set, const AlgoConfig& base, const AlgoCaps& caps, std::int64_t k,
                  bool splits) {
  if (caps.splitk) {
    for (int split : kVariantSplits) {
      if (!split_fits(split, k) || (split > 1 && !splits)) continue;
      for (std::uint32_t reduction : reductions_for(split, caps.reduction_mask)) {
        AlgoConfig c = base;
        c.splitk = split;
        c.reduction = reduction;
        set.offer(c);
      }
    }
  }
  if (caps.swizzle) {
    AlgoConfig c = base;
    c.swizzle = base.swizzle == 0 ? 1 : 0;
    set.offer(c);
  }
}

std::vector<int> algo_ids(const LtMatmul& matmul) {
  const GemmTypes& t = matmul.types();
  std::vector<int> ids(1024);
  int count = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetIds(cublaslt_handle(), t.compute, t.scale, t.a, t.b, t.c, t.d,
                               static_cast<int>(ids.size()), ids.data(), &count);
  if (status != CUBLAS_STATUS_SUCCESS) return {};
  ids.resize(static_cast<std::size_t>(count));
  return ids;
}

// Every configuration of one algorithm id, until the check count reaches `budget_end`; false
// when it stopped there.
bool exhaust_id(CandidateSet& set, const LtMatmul& matmul, int id, long budget_end,
                const std::set<std::uint16_t>& inners) {
  const GemmTypes& t = matmul.types();
  cublasLtMatmulAlgo_t probe{};
  if (cublasLtMatmulAlgoInit(cublaslt_handle(), t.compute, t.scale, t.a, t.b, t.c, t.d, id,
                             &probe) != CUBLAS_STATUS_SUCCESS) {
    return true;
  }
  const AlgoCaps caps = read_caps(probe);
  const std::int64_t k = matmul.problem().k;
  bool clusters_probed = false, takes_clusters = false;
  for (std::uint32_t tile : caps.tiles) {
    for (std::uint32_t stages : caps.stages) {
      for (std::int32_t custom = 0; custom <= caps.custom_option_max; ++custom) {
        for (std::uint16_t inner : inners) {
          if (set.checks() >= budget_end) return false;
          AlgoConfig base;
          base.id = id;
          base.tile = tile;
          base.stages = stages;
          base.custom = static_cast<std::uint32_t>(custom);
          base.inner = inner;
          if (!set.offer(base)) continue;
          if (!clusters_probed) {
            // Whether the algorithm takes an explicit cluster shape at all: one probe.
            AlgoConfig c = base;
            c.cluster = CUBLASLT_CLUSTER_SHAPE_1x1x1;
            takes_clusters = set.offer(c);
            clusters_probed = true;
          }
          std::vector<std::uint16_t> clusters{0};
          if (takes_clusters) clusters.insert(clusters.end(), kClusters.begin(), kClusters.end());
          for (std::uint16_t cluster : clusters) {
            for (std::uint32_t swizzle = 0; swizzle <= (caps.swizzle ? 1u : 0u); ++swizzle) {
              for (int split : kExhaustiveSplits) {
                if (split > 1 && (!caps.splitk || !split_fits(split, k))) continue;
                for (std::uint32_t reduction : reductions_for(split, caps.reduction_mask)) {
                  AlgoConfig c = base;
                  c.cluster = cluster;
                  c.swizzle = swizzle;
                  c.splitk = split;
                  c.reduction = reduction;
                  set.offer(c);
                }
              }
            }
          }
        }
      }
    }
  }
  return true;
}

void add_exhaustive(CandidateSet& set, const LtMatmul& matmul, const std::vector<int>& ids,
                    long max_checks, const std::map<int, std::set<std::uint16_t>>& inner_seen,
                    LtSearchStats& st) {
  // Each id gets an even share of what is left, so that no id with a huge space starves the rest.
  for (std::size_t index = 0; index < ids.size(); ++index) {
    const long left = max_checks - set.checks();
    const long budget_end = set.checks() + left / static_cast<long>(ids.size() - index);
    std::set<std::uint16_t> inners{0};
    if (auto it = inner_seen.find(ids[index]); it != inner_seen.end()) {
      inners.insert(it->second.begin(), it->second.end());
    }
    if (!exhaust_id(set, matmul, ids[index], budget_end, inners)) st.truncated = true;
  }
}

}  // namespace

bool split_variants_pay(const Problem& problem, int sm_count) {
  constexpr std::int64_t kTileElements = 128 * 128;
  constexpr std::int64_t kWaves = 2;
  if (sm_count <= 0) return true;
  return problem.m * problem.n * problem.batch < kWaves * sm_count * kTileElements;
}

std::vector<LtCandidate> search_algorithms(const LtMatmul& matmul, const LtSearchLimits& limits,
                                           LtSearchStats* stats) {
  LtSearchStats local;
  LtSearchStats& st = stats != nullptr ? *stats : local;
  st = {};
  CandidateSet set(matmul, limits, st);

  // Every query's proposals, the plain best fit first so that its ranking leads.
  std::vector<cublasLtMatmulHeuristicResult_t> proposals;
  auto ask = [&](const LtMatmul::HeuristicQuery& query) {
    const auto answer = matmul.heuristic(query);
    proposals.insert(proposals.end(), answer.begin(), answer.end());
    return answer.size();
  };
  LtMatmul::HeuristicQuery best_fit;
  best_fit.count = limits.heuristic_count;
  best_fit.max_workspace_bytes = limits.max_workspace_bytes;
  st.best_fit_returned = static_cast<int>(ask(best_fit));
  for (std::uint32_t mask : {std::uint32_t{CUBLASLT_REDUCTION_SCHEME_NONE}, kReductions[0],
                             kReductions[1], kReductions[2]}) {
    LtMatmul::HeuristicQuery q = best_fit;
    q.reduction_mask = mask;
    ask(q);
  }
  const std::vector<int> ids = algo_ids(matmul);
  for (int id : ids) {
    LtMatmul::HeuristicQuery q = best_fit;
    q.count = limits.per_id_count;
    q.algo_id = id;
    ask(q);
  }
  st.heuristic_returned = static_cast<int>(proposals.size());
  std::vector<std::pair<AlgoConfig, AlgoCaps>> bases;
  std::map<int, std::set<std::uint16_t>> inner_seen;
  for (const auto& proposal : proposals) {
    const AlgoConfig config = read_config(proposal.algo);
    cublasLtMatmulAlgo_t rebuilt{};
    const std::size_t before = set.size();
    if (!set.offer(config, &rebuilt)) {
      ++st.heuristic_not_rebuilt;
      continue;
    }
    if (set.size() == before) continue;  // the same configuration proposed twice
    if (std::memcmp(&rebuilt, &proposal.algo, sizeof(rebuilt)) != 0) ++st.rebuilt_differs;
    bases.emplace_back(config, read_caps(proposal.algo));
    inner_seen[config.id].insert(config.inner);
  }
  st.heuristic_offered = static_cast<int>(set.size());

  if (limits.variants || limits.exhaustive) {
    // The exhaustive search offers every split of its own, these included.
    const bool splits = limits.exhaustive || split_variants_pay(matmul.problem(), limits.sm_count);
    for (const auto& [config, caps] : bases) {
      add_variants(set, config, caps, matmul.problem().k, splits);
    }
  }
  st.variants_offered = static_cast<int>(set.size()) - st.heuristic_offered;

  if (limits.exhaustive) add_exhaustive(set, matmul, ids, limits.max_checks, inner_seen, st);
  st.exhaustive_offered = static_cast<int>(set.size()) - st.heuristic_offered - st.variants_offered;
  return set.take();
}

}  // namespace gemmtune::cuda
