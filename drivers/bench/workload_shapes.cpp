// micro_perf's old workload form: "input_shape_list" (or "M/K/N") and "input_shape_groups" with a
// list of dtypes, expanded dtype-major as its perf_engine.py does (workload.hpp has the rules).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "drivers/bench/workload_reader.hpp"

namespace gemmtune::bench::detail {
namespace {

struct Shape {
  std::int64_t m, k, n;
  std::string origin;
};

class ShapeReader {
 public:
  explicit ShapeReader(const WorkloadReader& r) : r_(r) {}

  void parse_old_form(const Json& root, Workload& w) const {
    if (root.contains("operator")) {
      r_.check_operator(root["operator"], "operator");
    } else {
      r_.check_operator_from_file();
    }
    const int iters = root.contains("iterations") ? r_.iterations(root["iterations"], "iterations")
                                                  : kDefaultIterations;
    std::vector<std::pair<std::string, std::string>> dtypes;  // name, path
    if (!r_.overrides().dtypes.empty()) {
      for (std::size_t i = 0; i < r_.overrides().dtypes.size(); ++i) {
        dtypes.emplace_back(r_.overrides().dtypes[i], element("--dtype", i));
      }
    } else if (!root.contains("dtype")) {
      dtypes.emplace_back("float32", "dtype");  // micro_perf's default
    } else if (root["dtype"].is_array()) {
      if (root["dtype"].empty()) r_.fail("dtype", "an empty list expands to no case");
      for (std::size_t i = 0; i < root["dtype"].size(); ++i) {
        const Json& d = root["dtype"][i];
        r_.check_dtype_name(d, element("dtype", i));
        dtypes.emplace_back(d.get<std::string>(), element("dtype", i));
      }
    } else {
      r_.check_dtype_name(root["dtype"], "dtype");
      dtypes.emplace_back(root["dtype"].get<std::string>(), "dtype");
    }

    // As perf_engine.py's parse_workload reads them: input_shape_list, or else "M/K/N" triples,
    // and then input_shape_groups too, in that order.
    std::vector<Shape> shapes;
    std::vector<std::string> forms;
    if (root.contains("input_shape_list")) {
      forms.emplace_back("input_shape_list");
      const Json& list = root["input_shape_list"];
      if (!list.is_array()) {
        r_.fail("input_shape_list",
                fmt::format("expected a list of [[M, K], [K, N]], got {}", shown(list)));
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        shapes.push_back(gemm_shape(list[i], element("input_shape_list", i)));
      }
    } else if (root.contains("M/K/N")) {
      forms.emplace_back("M/K/N");
      if (root.contains("batch_size")) {
        r_.fail("batch_size",
                "\"M/K/N\" with a batch_size is micro_perf's batch_gemm; gemmtune "
                "bench runs gemm");
      }
      const Json& list = root["M/K/N"];
      if (!list.is_array()) {
        r_.fail("M/K/N", fmt::format("expected a list of [M, K, N], got {}", shown(list)));
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string path = element("M/K/N", i);
        if (!list[i].is_array() || list[i].size() != 3) {
          r_.fail(path, fmt::format("expected [M, K, N], got {}", shown(list[i])));
        }
        shapes.push_back({r_.dimension(list[i][0], element(path, 0)),
                          r_.dimension(list[i][1], element(path, 1)),
                          r_.dimension(list[i][2], element(path, 2)), path});
      }
    }
    if (root.contains("input_shape_groups")) {
      forms.emplace_back("input_shape_groups");
      const Json& groups = root["input_shape_groups"];
      if (groups.is_array()) {
        for (std::size_t g = 0; g < groups.size(); ++g) {
          add_group(groups[g], element("input_shape_groups", g), shapes);
        }
      } else {
        add_group(groups, "input_shape_groups", shapes);
      }
    }
    if (forms.empty()) {
      r_.fail("", "no input_shape_list, M/K/N or input_shape_groups (or cases): nothing to run");
    }
    w.form = fmt::format("{}", fmt::join(forms, "+"));
    if (shapes.empty()) r_.fail(w.form, "holds no shape");
    for (const auto& [name, path] : dtypes) {
      for (const Shape& s : shapes) {
        Json args = Json::object();
        args["dtype"] = name;
        args["input_shapes"] = Json::array({Json::array({s.m, s.k}), Json::array({s.k, s.n})});
        r_.add_case(w, s.m, s.k, s.n, name, iters, s.origin, std::move(args));
      }
    }
  }

  // [[M, K], [K, N]]
  Shape gemm_shape(const Json& v, const std::string& path) const {
    auto is_pair = [](const Json& x) { return x.is_array() && x.size() == 2; };
    if (!is_pair(v) || !is_pair(v[0]) || !is_pair(v[1])) {
      r_.fail(path, fmt::format("expected [[M, K], [K, N]], got {}", shown(v)));
    }
    Shape s{r_.dimension(v[0][0], element(element(path, 0), 0)),
            r_.dimension(v[0][1], element(element(path, 0), 1)),
            r_.dimension(v[1][1], element(element(path, 1), 1)), path};
    const std::int64_t k_of_b = r_.dimension(v[1][0], element(element(path, 1), 0));
    if (k_of_b != s.k) {
      r_.fail(path, fmt::format("the K of a [M, K] ({}) and of b [K, N] ({}) differ", s.k, k_of_b));
    }
    return s;
  }

  std::vector<std::int64_t> dimensions(const Json& group, const char* key,
                                       const std::string& path) const {
    std::vector<std::int64_t> out;
    if (!group.contains(key)) return out;
    const Json& list = group[key];
    const std::string p = member(path, key);
    if (!list.is_array()) r_.fail(p, fmt::format("expected a list of sizes, got {}", shown(list)));
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(r_.dimension(list[i], element(p, i)));
    return out;
  }

  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(const Json& group, const char* key,
                                                           const std::string& path) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    if (!group.contains(key)) return out;
    const Json& list = group[key];
    const std::string p = member(path, key);
    if (!list.is_array()) r_.fail(p, fmt::format("expected a list of pairs, got {}", shown(list)));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string ep = element(p, i);
      if (!list[i].is_array() || list[i].size() != 2) {
        r_.fail(ep,
                fmt::format("expected a pair [{}, {}], got {}", key[0], key[1], shown(list[i])));
      }
      out.emplace_back(r_.dimension(list[i][0], element(ep, 0)),
                       r_.dimension(list[i][1], element(ep, 1)));
    }
    return out;
  }

  // One of micro_perf's input_shape_groups, expanded as its perf_engine.py does.
  void add_group(const Json& group, const std::string& path, std::vector<Shape>& shapes) const {
    if (!group.is_object()) r_.fail(path, fmt::format("expected an object, got {}", shown(group)));
    for (const char* key : {"batch_size", "gemm_group"}) {
      if (group.contains(key)) {
        r_.fail(member(path, key),
                "batched and grouped gemm are not supported: gemmtune bench runs gemm");
      }
    }
    if (group.contains("inputs"))
      return add_inputs_group(group["inputs"], member(path, "inputs"), shapes);
    const auto m = dimensions(group, "M", path);
    const auto k = dimensions(group, "K", path);
    const auto n = dimensions(group, "N", path);
    const auto mn = pairs(group, "MN", path);
    const auto mk = pairs(group, "MK", path);
    const auto kn = pairs(group, "KN", path);
    const std::size_t before = shapes.size();
    if (!m.empty() && !k.empty() && !n.empty()) {
      for (auto mm : m)
        for (auto kk : k)
          for (auto nn : n) shapes.push_back({mm, kk, nn, path});
    }
    if (!mn.empty() && !k.empty()) {
      for (auto [mm, nn] : mn)
        for (auto kk : k) shapes.push_back({mm, kk, nn, path});
    }
    if (!mk.empty() && !n.empty()) {
      for (auto [mm, kk] : mk)
        for (auto nn : n) shapes.push_back({mm, kk, nn, path});
    }
    if (!m.empty() && !kn.empty()) {
      for (auto mm : m)
        for (auto [kk, nn] : kn) shapes.push_back({mm, kk, nn, path});
    }
    if (shapes.size() == before) {
      r_.fail(path, "give M, K and N, or MN and K, or MK and N, or M and KN (lists of sizes)");
    }
  }

  // "inputs": for each input, a list of dimension lists; each input's combinations, zipped.
  void add_inputs_group(const Json& inputs, const std::string& path,
                        std::vector<Shape>& shapes) const {
    if (!inputs.is_array() || inputs.size() != 2) {
      r_.fail(path, fmt::format("expected the two inputs of a gemm, [[Ms, Ks], [Ks, Ns]], got {}",
                                shown(inputs)));
    }
    std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, 2> combos;
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string ip = element(path, i);
      const Json& dims = inputs[i];
      if (!dims.is_array() || dims.size() != 2 || !dims[0].is_array() || !dims[1].is_array()) {
        r_.fail(ip, fmt::format("expected two lists of sizes, got {}", shown(dims)));
      }
      for (std::size_t r = 0; r < dims[0].size(); ++r) {
        for (std::size_t c = 0; c < dims[1].size(); ++c) {
          combos[i].emplace_back(r_.dimension(dims[0][r], element(element(ip, 0), r)),
                                 r_.dimension(dims[1][c], element(element(ip, 1), c)));
        }
      }
    }
    const std::size_t count = std::min(combos[0].size(), combos[1].size());  // zip
    for (std::size_t j = 0; j < count; ++j) {
      const auto [m, k] = combos[0][j];
      const auto [k_of_b, n] = combos[1][j];
      if (k != k_of_b) {
        r_.fail(path,
                fmt::format("combination {}: the K of a [M, K] ({}) and of b [K, N] ({}) differ", j,
                            k, k_of_b));
      }
      shapes.push_back({m, k, n, path});
    }
  }

 private:
  const WorkloadReader& r_;
};

}  // namespace

void read_shape_form(const WorkloadReader& r, const Json& root, Workload& w) {
  ShapeReader(r).parse_old_form(root, w);
}

}  // namespace gemmtune::bench::detail
