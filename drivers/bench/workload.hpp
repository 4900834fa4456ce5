// Workload: the GEMM cases of a micro_perf workload file (ByteMLPerf byte_micro_perf/workloads),
// in both of its forms, expanded into the list `gemmtune bench` measures, in micro_perf's order.
//
// Old form (workloads/gemm.json until 2024): one operator per file,
//   {"operator": "gemm", "iterations": 100, "dtype": ["float32", "bfloat16", "half"],
//    "input_shape_list": [[[M, K], [K, N]], ...]}
// or, instead of input_shape_list, "input_shape_groups": a group or a list of groups, each with
// lists "M", "K", "N" (every combination), or "MN" pairs and "K", or "MK" pairs and "N", or "M"
// and "KN" pairs, or "inputs" (per input a list of dimension lists, each input's combinations
// zipped with the other's). "dtype" is a name or a list (default float32), "iterations" the timed
// iterations (default 100). Expanded dtype-major: every shape for the first dtype, then the next.
//
// Newer form (workloads/basic/gemm_ops/gemm.json): {"cases": [case, ...]} with the operator named
// by the file ("gemm.json") or by an "operator" key; or {"gemm": [case, ...]}; or a bare list of
// cases (operator from the file name). A case is an object; each list value expands as a
// cartesian product in the order of the keys, the last key varying fastest (itertools.product),
// a scalar counts as a list of one, and a key joining names with dots ("K.N": [[4096, 8192], ...])
// sets each of those names from one entry (after the case's other arguments, as micro_perf's
// get_cartesian_product adds them). A case whose "arg_type" contains "batch" is taken as
// it is. After expansion a case needs M, K, N and dtype; "iterations" is optional (default: the
// file's top-level "iterations", else 100); other keys ("arg_type", ...) are kept in its
// arguments and otherwise ignored, except that a case of several GEMMs at once (a batch_size
// other than 1, a gemm_group) is an error, as batch_size and gemm_group are in the old form:
// gemmtune bench measures one GEMM per case. A file that gives both cases and shapes, or both
// shape keys, is an error too, rather than one of them silently winning.
//
// Overrides from the command line replace the file's dtypes (before expansion, so the order is
// the file's) and its iterations.
//
// Errors are InputErrors "FILE: PATH: what is wrong", PATH in JSON notation
// ("gemm.json: cases[2].M[1]: expected a positive integer, got -4"); an operator other than gemm,
// and a dtype name nobody knows (the message lists the known ones), are errors too.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/bench/bench_case.hpp"

namespace gemmtune::bench {

struct WorkloadOverrides {
  std::vector<std::string> dtypes;  // empty: the file's
  std::optional<int> iterations;
};

struct Workload {
  std::string name;  // the file, as given, for messages and reports
  std::string form;  // "input_shape_list", "input_shape_groups" or "cases"
  std::vector<BenchCase> cases;
};

inline constexpr int kDefaultIterations = 100;

// `file` names the text in messages; its stem names the operator where the form says so.
Workload parse_workload(std::string_view json_text, const std::filesystem::path& file,
                        const WorkloadOverrides& overrides = {});

// Reads and parses; a missing or unreadable file is an InputError.
Workload load_workload(const std::filesystem::path& file, const WorkloadOverrides& overrides = {});

}  // namespace gemmtune::bench
