#include "drivers/bench/workload_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "tuner/error.hpp"

namespace gemmtune::bench::detail {
namespace {

// cuBLAS and BLAS take int dimensions.
constexpr std::int64_t kMaxDimension = std::numeric_limits<std::int32_t>::max();

bool is_identifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string member(const std::string& path, std::string_view key) {
  if (is_identifier(key)) return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  return fmt::format("{}[\"{}\"]", path, key);
}

std::string element(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::string shown(const Json& v) {
  std::string text = v.dump();
  if (text.size() > 48) text = text.substr(0, 45) + "...";
  return text;
}

WorkloadReader::WorkloadReader(const std::filesystem::path& file,
                               const WorkloadOverrides& overrides)
    : file_(file.string()), stem_(file.stem().string()), overrides_(overrides) {}

[[noreturn]] void WorkloadReader::fail(const std::string& path, const std::string& what) const {
  if (path.empty()) throw InputError(fmt::format("{}: {}", file_, what));
  throw InputError(fmt::format("{}: {}: {}", file_, path, what));
}

std::int64_t WorkloadReader::dimension(const Json& v, const std::string& path) const {
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

int WorkloadReader::iterations(const Json& v, const std::string& path) const {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
      v.get<std::int64_t>() > std::numeric_limits<int>::max()) {
    fail(path, fmt::format("expected a positive number of iterations, got {}", shown(v)));
  }
  return static_cast<int>(v.get<std::int64_t>());
}

void WorkloadReader::check_operator(const Json& v, const std::string& path) const {
  if (!v.is_string()) fail(path, fmt::format("expected an operator name, got {}", shown(v)));
  const std::string name = v.get<std::string>();
  if (lower(name) != "gemm") {
    fail(path, fmt::format("operator \"{}\" is not supported: gemmtune bench runs gemm", name));
  }
}

void WorkloadReader::check_operator_from_file() const {
  if (stem_ != "gemm") {
    fail("", fmt::format("in this form micro_perf names the operator by the file (\"{}\"), and "
                         "gemmtune bench runs gemm only: name the file gemm.json or add "
                         "\"operator\": \"gemm\"",
                         stem_));
  }
}

void WorkloadReader::check_dtype_name(const Json& v, const std::string& path) const {
  if (!v.is_string()) fail(path, fmt::format("expected a dtype name, got {}", shown(v)));
  if (!dtype_from_workload_name(v.get<std::string>())) {
    fail(path,
         fmt::format("unknown dtype \"{}\"; known: {}", v.get<std::string>(), known_dtype_names()));
  }
}

void WorkloadReader::add_case(Workload& w, std::int64_t m, std::int64_t k, std::int64_t n,
                              const std::string& dtype, int iters, std::string origin,
                              Json arguments) const {
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

}  // namespace gemmtune::bench::detail
