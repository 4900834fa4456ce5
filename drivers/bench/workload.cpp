#include "drivers/bench/workload.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "db/text_lines.hpp"
#include "drivers/bench/workload_reader.hpp"
#include "tuner/error.hpp"

namespace gemmtune::bench {
namespace detail {
namespace {

// The keys that give an old-form workload's shapes (workload_shapes.cpp reads them).
constexpr const char* kShapeKeys[] = {"input_shape_list", "M/K/N", "input_shape_groups"};

// Which form the document is in, and its cases.
Workload parse(const WorkloadReader& r, const std::string& file, std::string_view text) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", file, e.what()));
  }
  Workload w;
  w.name = file;
  if (root.is_array()) {
    w.form = "cases";
    r.check_operator_from_file();
    read_cases(r, root, "", nullptr, w);
  } else if (!root.is_object()) {
    r.fail("", fmt::format("expected a JSON object (or a list of cases), got {}", shown(root)));
  } else if (root.contains("cases")) {
    for (const char* other : kShapeKeys) {
      if (root.contains(other)) {
        r.fail(other,
               "a workload gives its GEMMs as cases or as shapes, not both: which to run "
               "is not clear");
      }
    }
    w.form = "cases";
    if (root.contains("operator")) {
      r.check_operator(root["operator"], "operator");
    } else {
      r.check_operator_from_file();
    }
    const Json* top_iterations = root.contains("iterations") ? &root["iterations"] : nullptr;
    read_cases(r, root["cases"], "cases", top_iterations, w);
  } else if (root.contains("operator") ||
             std::any_of(std::begin(kShapeKeys), std::end(kShapeKeys),
                         [&](const char* key) { return root.contains(key); })) {
    read_shape_form(r, root, w);
  } else {
    read_named_operators(r, root, w);
  }
  if (w.cases.empty()) r.fail("", "the workload holds no case");
  return w;
}

}  // namespace
}  // namespace detail

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
  const detail::WorkloadReader reader(file, overrides);
  return detail::parse(reader, file.string(), json_text);
}

Workload load_workload(const std::filesystem::path& file, const WorkloadOverrides& overrides) {
  // read_file names a directory or a missing file as such (an ifstream reads a directory as an
  // empty file, which was reported as JSON that ends too soon).
  return parse_workload(read_file(file), file, overrides);
}

}  // namespace gemmtune::bench
