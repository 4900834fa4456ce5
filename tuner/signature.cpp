// Parsing and printing of PyTorch TunableOp's op and params signatures.
//
//   op:     <Op>TunableOp_<T>_<TA><TB>            ScaledGemmTunableOp_<A>_<B>_<C>_<TA><TB>
//   params: <ta><tb>_<m>_<n>_<k>[_B_<batch>]_ld_<lda>_<ldb>_<ldc>[_rw_<0|1>_bias_<None|T>]
//
// Printing is byte-exact with PyTorch (aten/src/ATen/cuda/tunable/GemmCommon.h); parsing accepts
// exactly that grammar and explains any departure from it.
#include <charconv>
#include <vector>

#include "tuner/error.hpp"
#include "tuner/problem.hpp"

namespace gemmtune {
namespace {

constexpr std::string_view kOpSuffix = "TunableOp_";
constexpr std::string_view kParamsGrammar = "<ta><tb>_<m>_<n>_<k>[_B_<batch>]_ld_<lda>_<ldb>_<ldc>";

[[noreturn]] void fail(std::string_view what) {
  throw InputError(std::string(what));
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::int64_t parse_size(std::string_view name, std::string_view text) {
  if (text.empty()) fail(fmt::format("{} is missing", name));
  if (text.front() == '-') fail(fmt::format("{} is negative: '{}'", name, text));
  for (char c : text) {
    if (c < '0' || c > '9') fail(fmt::format("{} is not a number: '{}'", name, text));
  }
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    fail(fmt::format("{} overflows a 64-bit integer: '{}'", name, text));
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    fail(fmt::format("{} is not a number: '{}'", name, text));
  }
  return value;
}

std::pair<Transpose, Transpose> parse_transposes(std::string_view letters, std::string_view where) {
  if (letters.size() != 2) {
    fail(fmt::format("transposes in the {} must be two letters of N, T, C, got '{}'", where,
                     letters));
  }
  const auto a = transpose_from_char(letters[0]);
  const auto b = transpose_from_char(letters[1]);
  if (!a || !b) {
    fail(fmt::format("transposes in the {} must be letters of N, T, C, got '{}'", where, letters));
  }
  return {*a, *b};
}

// Splits "A_B_C" into three PyTorch type names, which may themselves contain underscores.
std::vector<DType> parse_dtype_list(std::string_view text, std::size_t count) {
  std::vector<DType> types;
  while (types.size() < count) {
    std::optional<DType> match;
    std::size_t match_len = 0;
    for (const auto& d : all_dtypes()) {
      const auto name = d.pytorch_name;
      const bool fits = text.substr(0, name.size()) == name &&
                        (text.size() == name.size() || text[name.size()] == '_');
      if (fits && name.size() > match_len) {
        match = d.dtype;
        match_len = name.size();
      }
    }
    if (!match) {
      fail(fmt::format("unknown dtype '{}' in op signature", text.substr(0, text.find('_'))));
    }
    types.push_back(*match);
    text.remove_prefix(match_len);
    if (!text.empty()) text.remove_prefix(1);
  }
  if (!text.empty()) fail(fmt::format("unexpected '{}' after the dtypes in op signature", text));
  return types;
}

struct OpSignature {
  OpKind op;
  std::vector<DType> types;  // one, or A, B, C for ScaledGemm
  Transpose transa, transb;
};

OpSignature parse_op_signature(std::string_view sig) {
  const auto at = sig.find(kOpSuffix);
  if (at == std::string_view::npos) {
    fail(fmt::format("op signature '{}' does not have the form <Op>TunableOp_<dtype>_<TA><TB>",
                     sig));
  }
  const auto op_name = sig.substr(0, at);
  const auto op = op_kind_from_string(op_name);
  if (!op) {
    fail(
        fmt::format("unknown op '{}' (expected Gemm, GemmAndBias, GemmStridedBatched or "
                    "ScaledGemm)",
                    op_name));
  }
  const auto rest = sig.substr(at + kOpSuffix.size());
  const auto last = rest.rfind('_');
  if (last == std::string_view::npos) {
    fail(fmt::format("op signature '{}' lacks the _<TA><TB> transposes", sig));
  }
  const auto [ta, tb] = parse_transposes(rest.substr(last + 1), "op signature");
  const auto types_text = rest.substr(0, last);
  std::vector<DType> types;
  if (*op == OpKind::ScaledGemm) {
    types = parse_dtype_list(types_text, 3);
  } else {
    const auto d = dtype_from_pytorch_name(types_text);
    if (!d) fail(fmt::format("unknown dtype '{}' in op signature", types_text));
    types = {*d};
  }
  return {*op, std::move(types), ta, tb};
}

}  // namespace

std::string Problem::op_signature() const {
  const char ta = static_cast<char>(to_char(transa) - 'a' + 'A');
  const char tb = static_cast<char>(to_char(transb) - 'a' + 'A');
  if (op == OpKind::ScaledGemm) {
    return fmt::format("ScaledGemmTunableOp_{}_{}_{}_{}{}", info(a_type).pytorch_name,
                       info(b_type).pytorch_name, info(c_type).pytorch_name, ta, tb);
  }
  return fmt::format("{}TunableOp_{}_{}{}", to_string(op), info(a_type).pytorch_name, ta, tb);
}

std::string Problem::params_signature() const {
  std::string out = fmt::format("{}{}_{}_{}_{}", to_char(transa), to_char(transb), m, n, k);
  if (op == OpKind::GemmStridedBatched) out += fmt::format("_B_{}", batch);
  out += fmt::format("_ld_{}_{}_{}", lda, ldb, ldc);
  if (op == OpKind::ScaledGemm) {
    out += fmt::format("_rw_{}_bias_{}", rowwise ? 1 : 0,
                       bias_type ? info(*bias_type).scalar_name : std::string_view("None"));
  }
  return out;
}

Problem parse_problem(std::string_view op_sig, std::string_view params_sig) {
  const OpSignature parsed_op = parse_op_signature(op_sig);
  Problem p;
  p.op = parsed_op.op;
  p.transa = parsed_op.transa;
  p.transb = parsed_op.transb;
  p.a_type = parsed_op.types.front();
  p.b_type = parsed_op.types.size() == 3 ? parsed_op.types[1] : p.a_type;
  p.c_type = parsed_op.types.back();

  const auto fields = split(params_sig, '_');
  std::size_t i = 0;
  auto next = [&](std::string_view name) -> std::string_view {
    if (i >= fields.size()) {
      fail(fmt::format("params signature '{}' ends before {} (expected {})", params_sig, name,
                       kParamsGrammar));
    }
    return fields[i++];
  };
  auto expect_word = [&](std::string_view word) {
    const auto got = next(word);
    if (got != word) {
      fail(fmt::format("params signature '{}': expected '{}' where '{}' stands (grammar {})",
                       params_sig, word, got, kParamsGrammar));
    }
  };

  const auto [ta, tb] = parse_transposes(next("the transposes"), "params signature");
  if (ta != p.transa || tb != p.transb) {
    fail(fmt::format("transposes disagree: op signature says {}{}, params signature says {}{}",
                     to_char(p.transa), to_char(p.transb), to_char(ta), to_char(tb)));
  }
  p.m = parse_size("m", next("m"));
  p.n = parse_size("n", next("n"));
  p.k = parse_size("k", next("k"));
  if (p.op == OpKind::GemmStridedBatched) {
    expect_word("B");
    p.batch = parse_size("batch", next("batch"));
  }
  expect_word("ld");
  p.lda = parse_size("lda", next("lda"));
  p.ldb = parse_size("ldb", next("ldb"));
  p.ldc = parse_size("ldc", next("ldc"));
  if (p.op == OpKind::ScaledGemm) {
    expect_word("rw");
    const auto rw = next("rw");
    if (rw != "0" && rw != "1") fail(fmt::format("rw must be 0 or 1, got '{}'", rw));
    p.rowwise = rw == "1";
    expect_word("bias");
    std::string bias_name(next("bias"));
    while (i < fields.size()) bias_name += fmt::format("_{}", fields[i++]);
    if (bias_name != "None") {
      p.bias_type = dtype_from_scalar_name(bias_name);
      if (!p.bias_type) fail(fmt::format("unknown bias dtype '{}'", bias_name));
    }
  }
  if (i != fields.size()) {
    std::string extra;
    for (; i < fields.size(); ++i) extra += fmt::format("_{}", fields[i]);
    fail(fmt::format("params signature '{}' has unexpected trailing '{}' (expected {})", params_sig,
                     extra, kParamsGrammar));
  }
  if (auto why = p.invalid_reason()) fail(*why);
  return p;
}

}  // namespace gemmtune
