// micro_perf's newer workload form: lists of cases, each expanded as a cartesian product in the
// order of its keys (workload.hpp has the rules).
#include <fmt/format.h>

#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "drivers/bench/workload_reader.hpp"

namespace gemmtune::bench::detail {
namespace {

class CasesReader {
 public:
  explicit CasesReader(const WorkloadReader& r) : r_(r) {}

  struct Axis {
    std::string key;
    std::string path;
    std::vector<Json> values;
    bool listed = false;  // the values came from a list: their paths carry an index
  };

  void expand_cases(const Json& cases, const std::string& path, const Json* top_iterations,
                    Workload& w) const {
    if (!cases.is_array())
      r_.fail(path, fmt::format("expected a list of cases, got {}", shown(cases)));
    int default_iterations = kDefaultIterations;
    if (top_iterations) default_iterations = r_.iterations(*top_iterations, "iterations");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      expand_case(cases[i], element(path, i), default_iterations, w);
    }
  }

  void expand_case(const Json& c, const std::string& path, int default_iterations,
                   Workload& w) const {
    if (!c.is_object())
      r_.fail(path, fmt::format("expected an object of arguments, got {}", shown(c)));
    bool as_is = false;
    if (c.contains("arg_type") && c["arg_type"].is_string()) {
      as_is = c["arg_type"].get<std::string>().find("batch") != std::string::npos;
    }
    std::vector<Axis> axes;
    bool has_dtype = false;
    for (const auto& [key, value] : c.items()) {
      Axis axis{key, member(path, key), {}, false};
      if (key == "dtype" && !r_.overrides().dtypes.empty()) {
        has_dtype = true;
        axis.path = "--dtype";
        axis.listed = true;
        for (const auto& d : r_.overrides().dtypes) axis.values.emplace_back(d);
      } else if (value.is_array() && !as_is) {
        if (value.empty()) r_.fail(axis.path, "an empty list expands to no case");
        axis.listed = true;
        axis.values.assign(value.begin(), value.end());
      } else {
        axis.values.push_back(value);
      }
      has_dtype = has_dtype || key == "dtype";
      axes.push_back(std::move(axis));
    }
    if (!has_dtype && !r_.overrides().dtypes.empty()) {
      Axis axis{"dtype", "--dtype", {}, true};
      for (const auto& d : r_.overrides().dtypes) axis.values.emplace_back(d);
      axes.push_back(std::move(axis));
    }
    std::size_t total = 1;
    for (const auto& a : axes) {
      total *= a.values.size();
      if (total > kMaxCases) r_.fail(path, fmt::format("expands to more than {} cases", kMaxCases));
    }
    // The odometer of itertools.product: the last axis turns fastest.
    std::vector<std::size_t> at(axes.size(), 0);
    for (std::size_t done = 0; done < total; ++done) {
      emit_combination(axes, at, path, default_iterations, w);
      for (std::size_t a = axes.size(); a-- > 0;) {
        if (++at[a] < axes[a].values.size()) break;
        at[a] = 0;
      }
    }
  }

  void emit_combination(const std::vector<Axis>& axes, const std::vector<std::size_t>& at,
                        const std::string& case_path, int default_iterations, Workload& w) const {
    Json args = Json::object();
    // Names set by dotted keys come last, as micro_perf adds them after the others.
    std::vector<std::pair<std::string, Json>> split;
    std::map<std::string, std::string> paths;  // argument -> where its value came from
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const Axis& axis = axes[a];
      const Json& v = axis.values[at[a]];
      const std::string vpath = axis.listed ? element(axis.path, at[a]) : axis.path;
      if (axis.key.find('.') == std::string::npos) {
        args[axis.key] = v;
        paths[axis.key] = vpath;
        continue;
      }
      std::vector<std::string> names;
      std::stringstream ss(axis.key);
      for (std::string part; std::getline(ss, part, '.');) names.push_back(part);
      if (!v.is_array() || v.size() != names.size()) {
        r_.fail(vpath, fmt::format("expected a list of {} values ({}), got {}", names.size(),
                                   axis.key, shown(v)));
      }
      for (std::size_t j = 0; j < names.size(); ++j) {
        split.emplace_back(names[j], v[j]);
        paths[names[j]] = element(vpath, j);
      }
    }
    for (auto& [name, value] : split) args[name] = std::move(value);
    check_one_gemm(args, paths);
    for (const char* needed : {"M", "K", "N", "dtype"}) {
      if (!args.contains(needed)) {
        r_.fail(case_path, fmt::format("no {}: a gemm case needs M, K, N and dtype", needed));
      }
    }
    const std::int64_t m = r_.dimension(args["M"], paths["M"]);
    const std::int64_t k = r_.dimension(args["K"], paths["K"]);
    const std::int64_t n = r_.dimension(args["N"], paths["N"]);
    r_.check_dtype_name(args["dtype"], paths["dtype"]);
    int iters = default_iterations;
    if (args.contains("iterations")) iters = r_.iterations(args["iterations"], paths["iterations"]);
    const std::string dtype = args["dtype"].get<std::string>();
    r_.add_case(w, m, k, n, dtype, iters, case_path, std::move(args));
  }

  // A case micro_perf runs as several GEMMs at once must not be measured as one.
  void check_one_gemm(const Json& args, std::map<std::string, std::string>& paths) const {
    if (args.contains("batch_size") && args["batch_size"] != 1) {
      r_.fail(paths["batch_size"],
              fmt::format("batched gemm (batch_size {}) is not supported: gemmtune bench runs "
                          "one gemm per case",
                          shown(args["batch_size"])));
    }
    if (args.contains("gemm_group")) {
      r_.fail(paths["gemm_group"],
              "grouped gemm is not supported: gemmtune bench runs one gemm per case");
    }
  }

  void parse_named_operators(const Json& root, Workload& w) const {
    w.form = "cases";
    for (const auto& [key, value] : root.items()) {
      if (!value.is_array()) {
        r_.fail(key,
                "expected micro_perf's old form (operator, input_shape_list), its newer form "
                "(cases), or operator names with lists of cases");
      }
      if (key != "gemm") {
        r_.fail(key,
                fmt::format("operator \"{}\" is not supported: gemmtune bench runs gemm", key));
      }
      expand_cases(value, key, nullptr, w);
    }
  }

 private:
  const WorkloadReader& r_;
};

}  // namespace

void read_cases(const WorkloadReader& r, const Json& cases, const std::string& path,
                const Json* top_iterations, Workload& w) {
  CasesReader(r).expand_cases(cases, path, top_iterations, w);
}

void read_named_operators(const WorkloadReader& r, const Json& root, Workload& w) {
  CasesReader(r).parse_named_operators(root, w);
}

}  // namespace gemmtune::bench::detail
