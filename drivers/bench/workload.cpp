#include "drivers/bench/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "tuner/error.hpp"

namespace gemmtune::bench {
namespace {

using Json = nlohmann::ordered_json;

// cuBLAS and BLAS take int dimensions.
constexpr std::int64_t kMaxDimension = std::numeric_limits<std::int32_t>::max();
// A workload that expands beyond this is a mistake (a list where a value was meant).
constexpr std::size_t kMaxCases = 1'000'000;

bool is_identifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string member(const std::string& path, std::string_view key) {
  if (is_identifier(key)) return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  return fmt::format("{}[\"{}\"]", path, key);
}

std::string element(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

// A value as the message shows it: its JSON, shortened.
std::string shown(const Json& v) {
  std::string text = v.dump();
  if (text.size() > 48) text = text.substr(0, 45) + "...";
  return text;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Shape {
  std::int64_t m, k, n;
  std::string origin;
};

class Parser {
 public:
  Parser(const std::filesystem::path& file, const WorkloadOverrides& overrides)
      : file_(file.string()), stem_(file.stem().string()), overrides_(overrides) {}

  Workload parse(std::string_view text) {
    Json root;
    try {
      root = Json::parse(text);
    } catch (const Json::parse_error& e) {
      throw InputError(fmt::format("{}: not valid JSON: {}", file_, e.what()));
    }
    Workload w;
    w.name = file_;
    if (root.is_array()) {
      w.form = "cases";
      check_operator_from_file();
      expand_cases(root, "", nullptr, w);
    } else if (!root.is_object()) {
      fail("", fmt::format("expected a JSON object (or a list of cases), got {}", shown(root)));
    } else if (root.contains("cases")) {
      w.form = "cases";
      if (root.contains("operator")) {
        check_operator(root["operator"], "operator");
      } else {
        check_operator_from_file();
      }
      const Json* top_iterations = root.contains("iterations") ? &root["iterations"] : nullptr;
      expand_cases(root["cases"], "cases", top_iterations, w);
    } else if (root.contains("input_shape_list") || root.contains("input_shape_groups") ||
               root.contains("operator")) {
      parse_old_form(root, w);
    } else {
      parse_named_operators(root, w);
    }
    if (w.cases.empty()) fail("", "the workload holds no case");
    return w;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    if (path.empty()) throw InputError(fmt::format("{}: {}", file_, what));
    throw InputError(fmt::format("{}: {}: {}", file_, path, what));
  }

  std::int64_t dimension(const Json& v, const std::string& path) const {
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u >= 1 && u <= static_cast<std::uint64_t>(kMaxDimension))
        return static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      const auto s = v.get<std::int64_t>();
      if (s >= 1 && s <= kMaxDimension) return s;
    }
    fail(path,
         fmt::format("expected a positive integer (at most {}), got {}", kMaxDimension, shown(v)));
  }

  int iterations(const Json& v, const std::string& path) const {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max()) {
      fail(path, fmt::format("expected a positive number of iterations, got {}", shown(v)));
    }
    return static_cast<int>(v.get<std::int64_t>());
  }

  void check_operator(const Json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, fmt::format("expected an operator name, got {}", shown(v)));
    const std::string name = v.get<std::string>();
    if (lower(name) != "gemm") {
      fail(path, fmt::format("operator \"{}\" is not supported: gemmtune bench runs gemm", name));
    }
  }

  // micro_perf names the operator of a "cases" file by the file's name.
  void check_operator_from_file() const {
    if (stem_ != "gemm") {
      fail("", fmt::format("in this form micro_perf names the operator by the file (\"{}\"), and "
                           "gemmtune bench runs gemm only: name the file gemm.json or add "
                           "\"operator\": \"gemm\"",
                           stem_));
    }
  }

  // The dtype names a case may take from `v` (a name, or a list of names) at `path`.
  void check_dtype_name(const Json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, fmt::format("expected a dtype name, got {}", shown(v)));
    if (!dtype_from_workload_name(v.get<std::string>())) {
      fail(path, fmt::format("unknown dtype \"{}\"; known: {}", v.get<std::string>(),
                             known_dtype_names()));
    }
  }

  void add_case(Workload& w, std::int64_t m, std::int64_t k, std::int64_t n,
                const std::string& dtype, int iters, std::string origin, Json arguments) const {
    BenchCase c;
    c.m = m;
    c.k = k;
    c.n = n;
    c.dtype = dtype;
    const auto named = dtype_from_workload_name(dtype);  // checked by the caller
    c.gemm_dtype = named ? named->dtype : std::nullopt;
    c.skip_reason = named ? named->unsupported_reason : std::string("unknown dtype");
    c.iterations = overrides_.iterations.value_or(iters);
    c.origin = std::move(origin);
    c.arguments = std::move(arguments);
    if (w.cases.size() >= kMaxCases) {
      fail("", fmt::format("expands to more than {} cases", kMaxCases));
    }
    w.cases.push_back(std::move(c));
  }

  // ---- newer form ----

  struct Axis {
    std::string key;
    std::string path;
    std::vector<Json> values;
    bool listed = false;  // the values came from a list: their paths carry an index
  };

  void expand_cases(const Json& cases, const std::string& path, const Json* top_iterations,
                    Workload& w) const {
    if (!cases.is_array())
      fail(path, fmt::format("expected a list of cases, got {}", shown(cases)));
    int default_iterations = kDefaultIterations;
    if (top_iterations) default_iterations = iterations(*top_iterations, "iterations");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      expand_case(cases[i], element(path, i), default_iterations, w);
    }
  }

  void expand_case(const Json& c, const std::string& path, int default_iterations,
                   Workload& w) const {
    if (!c.is_object())
      fail(path, fmt::format("expected an object of arguments, got {}", shown(c)));
    bool as_is = false;
    if (c.contains("arg_type") && c["arg_type"].is_string()) {
      as_is = c["arg_type"].get<std::string>().find("batch") != std::string::npos;
    }
    std::vector<Axis> axes;
    bool has_dtype = false;
    for (const auto& [key, value] : c.items()) {
      Axis axis{key, member(path, key), {}, false};
      if (key == "dtype" && !overrides_.dtypes.empty()) {
        has_dtype = true;
        axis.path = "--dtype";
        axis.listed = true;
        for (const auto& d : overrides_.dtypes) axis.values.emplace_back(d);
      } else if (value.is_array() && !as_is) {
        if (value.empty()) fail(axis.path, "an empty list expands to no case");
        axis.listed = true;
        axis.values.assign(value.begin(), value.end());
      } else {
        axis.values.push_back(value);
      }
      has_dtype = has_dtype || key == "dtype";
      axes.push_back(std::move(axis));
    }
    if (!has_dtype && !overrides_.dtypes.empty()) {
      Axis axis{"dtype", "--dtype", {}, true};
      for (const auto& d : overrides_.dtypes) axis.values.emplace_back(d);
      axes.push_back(std::move(axis));
    }
    std::size_t total = 1;
    for (const auto& a : axes) {
      total *= a.values.size();
      if (total > kMaxCases) fail(path, fmt::format("expands to more than {} cases", kMaxCases));
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
        fail(vpath, fmt::format("expected a list of {} values ({}), got {}", names.size(), axis.key,
                                shown(v)));
      }
      for (std::size_t j = 0; j < names.size(); ++j) {
        split.emplace_back(names[j], v[j]);
        paths[names[j]] = element(vpath, j);
      }
    }
    for (auto& [name, value] : split) args[name] = std::move(value);
    for (const char* needed : {"M", "K", "N", "dtype"}) {
      if (!args.contains(needed)) {
        fail(case_path, fmt::format("no {}: a gemm case needs M, K, N and dtype", needed));
      }
    }
    const std::int64_t m = dimension(args["M"], paths["M"]);
    const std::int64_t k = dimension(args["K"], paths["K"]);
    const std::int64_t n = dimension(args["N"], paths["N"]);
    check_dtype_name(args["dtype"], paths["dtype"]);
    int iters = default_iterations;
    if (args.contains("iterations")) iters = iterations(args["iterations"], paths["iterations"]);
    const std::string dtype = args["dtype"].get<std::string>();
    add_case(w, m, k, n, dtype, iters, case_path, std::move(args));
  }

  void parse_named_operators(const Json& root, Workload& w) const {
    w.form = "cases";
    for (const auto& [key, value] : root.items()) {
      if (!value.is_array()) {
        fail(key,
             "expected micro_perf's old form (operator, input_shape_list), its newer form "
             "(cases), or operator names with lists of cases");
      }
      if (key != "gemm") {
        fail(key, fmt::format("operator \"{}\" is not supported: gemmtune bench runs gemm", key));
      }
      expand_cases(value, key, nullptr, w);
    }
  }

  // ---- old form ----

  void parse_old_form(const Json& root, Workload& w) const {
    if (root.contains("operator")) {
      check_operator(root["operator"], "operator");
    } else {
      check_operator_from_file();
    }
    const int iters = root.contains("iterations") ? iterations(root["iterations"], "iterations")
                                                  : kDefaultIterations;
    std::vector<std::pair<std::string, std::string>> dtypes;  // name, path
    if (!overrides_.dtypes.empty()) {
      for (std::size_t i = 0; i < overrides_.dtypes.size(); ++i) {
        dtypes.emplace_back(overrides_.dtypes[i], element("--dtype", i));
      }
    } else if (!root.contains("dtype")) {
      dtypes.emplace_back("float32", "dtype");  // micro_perf's default
    } else if (root["dtype"].is_array()) {
      if (root["dtype"].empty()) fail("dtype", "an empty list expands to no case");
      for (std::size_t i = 0; i < root["dtype"].size(); ++i) {
        const Json& d = root["dtype"][i];
        check_dtype_name(d, element("dtype", i));
        dtypes.emplace_back(d.get<std::string>(), element("dtype", i));
      }
    } else {
      check_dtype_name(root["dtype"], "dtype");
      dtypes.emplace_back(root["dtype"].get<std::string>(), "dtype");
    }

    std::vector<Shape> shapes;
    if (root.contains("input_shape_list")) {
      w.form = "input_shape_list";
      const Json& list = root["input_shape_list"];
      if (!list.is_array()) {
        fail("input_shape_list",
             fmt::format("expected a list of [[M, K], [K, N]], got {}", shown(list)));
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        shapes.push_back(gemm_shape(list[i], element("input_shape_list", i)));
      }
    } else if (root.contains("input_shape_groups")) {
      w.form = "input_shape_groups";
      const Json& groups = root["input_shape_groups"];
      if (groups.is_array()) {
        for (std::size_t g = 0; g < groups.size(); ++g) {
          add_group(groups[g], element("input_shape_groups", g), shapes);
        }
      } else {
        add_group(groups, "input_shape_groups", shapes);
      }
    } else {
      fail("", "no input_shape_list or input_shape_groups (or cases): nothing to run");
    }
    if (shapes.empty()) fail(w.form, "holds no shape");
    for (const auto& [name, path] : dtypes) {
      for (const Shape& s : shapes) {
        Json args = Json::object();
        args["dtype"] = name;
        args["input_shapes"] = Json::array({Json::array({s.m, s.k}), Json::array({s.k, s.n})});
        add_case(w, s.m, s.k, s.n, name, iters, s.origin, std::move(args));
      }
    }
  }

  // [[M, K], [K, N]]
  Shape gemm_shape(const Json& v, const std::string& path) const {
    auto is_pair = [](const Json& x) { return x.is_array() && x.size() == 2; };
    if (!is_pair(v) || !is_pair(v[0]) || !is_pair(v[1])) {
      fail(path, fmt::format("expected [[M, K], [K, N]], got {}", shown(v)));
    }
    Shape s{dimension(v[0][0], element(element(path, 0), 0)),
            dimension(v[0][1], element(element(path, 0), 1)),
            dimension(v[1][1], element(element(path, 1), 1)), path};
    const std::int64_t k_of_b = dimension(v[1][0], element(element(path, 1), 0));
    if (k_of_b != s.k) {
      fail(path, fmt::format("the K of a [M, K] ({}) and of b [K, N] ({}) differ", s.k, k_of_b));
    }
    return s;
  }

  std::vector<std::int64_t> dimensions(const Json& group, const char* key,
                                       const std::string& path) const {
    std::vector<std::int64_t> out;
    if (!group.contains(key)) return out;
    const Json& list = group[key];
    const std::string p = member(path, key);
    if (!list.is_array()) fail(p, fmt::format("expected a list of sizes, got {}", shown(list)));
    for (std::size_t i = 0; i < list.size(); ++i) out.push_back(dimension(list[i], element(p, i)));
    return out;
  }

  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(const Json& group, const char* key,
                                                           const std::string& path) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    if (!group.contains(key)) return out;
    const Json& list = group[key];
    const std::string p = member(path, key);
    if (!list.is_array()) fail(p, fmt::format("expected a list of pairs, got {}", shown(list)));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string ep = element(p, i);
      if (!list[i].is_array() || list[i].size() != 2) {
        fail(ep, fmt::format("expected a pair [{}, {}], got {}", key[0], key[1], shown(list[i])));
      }
      out.emplace_back(dimension(list[i][0], element(ep, 0)),
                       dimension(list[i][1], element(ep, 1)));
    }
    return out;
  }

  // One of micro_perf's input_shape_groups, expanded as its perf_engine.py does.
  void add_group(const Json& group, const std::string& path, std::vector<Shape>& shapes) const {
    if (!group.is_object()) fail(path, fmt::format("expected an object, got {}", shown(group)));
    for (const char* key : {"batch_size", "gemm_group"}) {
      if (group.contains(key)) {
        fail(member(path, key),
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
      fail(path, "give M, K and N, or MN and K, or MK and N, or M and KN (lists of sizes)");
    }
  }

  // "inputs": for each input, a list of dimension lists; each input's combinations, zipped.
  void add_inputs_group(const Json& inputs, const std::string& path,
                        std::vector<Shape>& shapes) const {
    if (!inputs.is_array() || inputs.size() != 2) {
      fail(path, fmt::format("expected the two inputs of a gemm, [[Ms, Ks], [Ks, Ns]], got {}",
                             shown(inputs)));
    }
    std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, 2> combos;
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string ip = element(path, i);
      const Json& dims = inputs[i];
      if (!dims.is_array() || dims.size() != 2 || !dims[0].is_array() || !dims[1].is_array()) {
        fail(ip, fmt::format("expected two lists of sizes, got {}", shown(dims)));
      }
      for (std::size_t r = 0; r < dims[0].size(); ++r) {
        for (std::size_t c = 0; c < dims[1].size(); ++c) {
          combos[i].emplace_back(dimension(dims[0][r], element(element(ip, 0), r)),
                                 dimension(dims[1][c], element(element(ip, 1), c)));
        }
      }
    }
    const std::size_t count = std::min(combos[0].size(), combos[1].size());  // zip
    for (std::size_t j = 0; j < count; ++j) {
      const auto [m, k] = combos[0][j];
      const auto [k_of_b, n] = combos[1][j];
      if (k != k_of_b) {
        fail(path, fmt::format("combination {}: the K of a [M, K] ({}) and of b [K, N] ({}) differ",
                               j, k, k_of_b));
      }
      shapes.push_back({m, k, n, path});
    }
  }

  std::string file_;
  std::string stem_;
  const WorkloadOverrides& overrides_;
};

}  // namespace

Workload parse_workload(std::string_view json_text, const std::filesystem::path& file,
                        const WorkloadOverrides& overrides) {
  for (const auto& d : overrides.dtypes) {
    if (!dtype_from_workload_name(d)) {
      throw InputError(fmt::format("--dtype {}: unknown dtype; known: {}", d, known_dtype_names()));
    }
  }
  if (overrides.iterations && *overrides.iterations < 1) {
    throw InputError(fmt::format("--iterations {}: give a positive number", *overrides.iterations));
  }
  return Parser(file, overrides).parse(json_text);
}

Workload load_workload(const std::filesystem::path& file, const WorkloadOverrides& overrides) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the workload file", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  return parse_workload(text.str(), file, overrides);
}

}  // namespace gemmtune::bench
