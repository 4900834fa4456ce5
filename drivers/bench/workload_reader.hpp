// Internal to the workload parser (workload.cpp and one file per form): JSON paths for messages,
// and WorkloadReader, the checks every form applies and the one place cases are added.
//
// Contract: every check fails with an InputError "FILE: PATH: what is wrong"; add_case applies
// the command line's iterations and resolves the dtype name (already checked by the caller).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "drivers/bench/workload.hpp"

namespace gemmtune::bench::detail {

using Json = nlohmann::ordered_json;

// A workload that expands beyond this is a mistake (a list where a value was meant).
inline constexpr std::size_t kMaxCases = 1'000'000;

// "cases[0]" + "M" -> "cases[0].M"; a key that is not a plain word is quoted: cases[0]["K.N"].
std::string member(const std::string& path, std::string_view key);
std::string element(const std::string& path, std::size_t index);
// A value as a message shows it: its JSON, shortened.
std::string shown(const Json& v);

class WorkloadReader {
 public:
  WorkloadReader(const std::filesystem::path& file, const WorkloadOverrides& overrides);

  [[noreturn]] void fail(const std::string& path, const std::string& what) const;
  // A positive integer that BLAS libraries take (below 2^31).
  std::int64_t dimension(const Json& v, const std::string& path) const;
  int iterations(const Json& v, const std::string& path) const;
  // "gemm", in any case.
  void check_operator(const Json& v, const std::string& path) const;
  // micro_perf names the operator of a "cases" file by the file's name.
  void check_operator_from_file() const;
  // A dtype name dtype_from_workload_name knows.
  void check_dtype_name(const Json& v, const std::string& path) const;
  void add_case(Workload& w, std::int64_t m, std::int64_t k, std::int64_t n,
                const std::string& dtype, int iters, std::string origin, Json arguments) const;

  const WorkloadOverrides& overrides() const { return overrides_; }

 private:
  std::string file_;
  std::string stem_;
  const WorkloadOverrides& overrides_;
};

// The newer form: the list of cases at `path` ("cases", "gemm", "" for a bare list), expanded.
void read_cases(const WorkloadReader& r, const Json& cases, const std::string& path,
                const Json* top_iterations, Workload& w);
// {"gemm": [case, ...]}: every key an operator with its list of cases.
void read_named_operators(const WorkloadReader& r, const Json& root, Workload& w);
// The old form: "operator", "dtype", "iterations" and input_shape_list or input_shape_groups.
void read_shape_form(const WorkloadReader& r, const Json& root, Workload& w);

}  // namespace gemmtune::bench::detail
