// The C API: an opaque handle owning a gemmtune::Context, status codes, and a per-thread
// last-error string. No exception crosses this boundary.
#include "gemmtune/gemmtune.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "api/call_checks.hpp"
#include "drivers/backend_factory.hpp"
#include "gemmtune/context.hpp"
#include "tuner/error.hpp"

struct gemmtune_context {
  explicit gemmtune_context(gemmtune::Options options) : context(std::move(options)) {}
  gemmtune::Context context;
};

namespace {

using gemmtune::DType;
using gemmtune::OpKind;

static_assert(static_cast<int>(OpKind::ScaledGemm) == GEMMTUNE_OP_SCALED_GEMM);
static_assert(static_cast<int>(DType::BFloat16) == GEMMTUNE_BFLOAT16);
static_assert(static_cast<int>(DType::ComplexFloat64) == GEMMTUNE_COMPLEX_FLOAT64);

thread_local std::string t_last_error;

gemmtune_status fail(gemmtune_status status, std::string message) {
  t_last_error = std::move(message);
  return status;
}

// Runs `f`, mapping exceptions to statuses.
template <typename F>
gemmtune_status guarded(F&& f) {
  try {
    return f();
  } catch (const gemmtune::InputError& e) {
    return fail(GEMMTUNE_ERROR_BAD_INPUT, e.what());
  } catch (const std::invalid_argument& e) {  // a setting the C++ API refuses
    return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(GEMMTUNE_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return fail(GEMMTUNE_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(GEMMTUNE_ERROR_INTERNAL, "unknown exception");
  }
}

// An enum field as the int a C caller stored: C lets any int into it, but in C++ loading a value
// outside the enumerators is undefined, and a compiler may drop a range check made on it.
template <typename Enum>
int stored_int(const Enum& field) {
  int value = 0;
  static_assert(sizeof(field) == sizeof(value));
  std::memcpy(&value, &field, sizeof value);
  return value;
}

bool to_problem(const gemmtune_problem* in, gemmtune::Problem& out) {
  if (in == nullptr) return false;
  const auto ta = gemmtune::transpose_from_char(in->transa);
  const auto tb = gemmtune::transpose_from_char(in->transb);
  const auto dtype_ok = [](int t) { return t >= 0 && t <= GEMMTUNE_COMPLEX_FLOAT64; };
  const int op = stored_int(in->op);
  const int a_type = stored_int(in->a_type), b_type = stored_int(in->b_type),
            c_type = stored_int(in->c_type);
  if (!ta || !tb || op < GEMMTUNE_OP_GEMM || op > GEMMTUNE_OP_SCALED_GEMM || !dtype_ok(a_type) ||
      !dtype_ok(b_type) || !dtype_ok(c_type) || (in->bias_type != -1 && !dtype_ok(in->bias_type))) {
    return false;
  }
  out.op = static_cast<OpKind>(op);
  out.transa = *ta;
  out.transb = *tb;
  out.m = in->m;
  out.n = in->n;
  out.k = in->k;
  out.lda = in->lda;
  out.ldb = in->ldb;
  out.ldc = in->ldc;
  out.batch = in->batch;
  out.stride_a = in->stride_a;
  out.stride_b = in->stride_b;
  out.stride_c = in->stride_c;
  out.a_type = static_cast<DType>(a_type);
  out.b_type = static_cast<DType>(b_type);
  out.c_type = static_cast<DType>(c_type);
  out.rowwise = in->rowwise != 0;
  out.bias_type.reset();
  if (in->bias_type >= 0) out.bias_type = static_cast<DType>(in->bias_type);
  return true;
}

void from_problem(const gemmtune::Problem& p, gemmtune_problem* out) {
  out->op = static_cast<gemmtune_op>(p.op);
  out->transa = gemmtune::to_char(p.transa);
  out->transb = gemmtune::to_char(p.transb);
  out->m = p.m;
  out->n = p.n;
  out->k = p.k;
  out->lda = p.lda;
  out->ldb = p.ldb;
  out->ldc = p.ldc;
  out->batch = p.batch;
  out->stride_a = p.stride_a;
  out->stride_b = p.stride_b;
  out->stride_c = p.stride_c;
  out->a_type = static_cast<gemmtune_dtype>(p.a_type);
  out->b_type = static_cast<gemmtune_dtype>(p.b_type);
  out->c_type = static_cast<gemmtune_dtype>(p.c_type);
  out->rowwise = p.rowwise ? 1 : 0;
  out->bias_type = p.bias_type ? static_cast<int>(*p.bias_type) : -1;
}

gemmtune_status copy_out(std::string_view text, char* out, size_t size) {
  if (out == nullptr || size == 0) return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, "null output");
  if (text.size() + 1 > size) {
    std::memcpy(out, text.data(), size - 1);
    out[size - 1] = '\0';
    return fail(GEMMTUNE_ERROR_BUFFER_TOO_SMALL,
                fmt::format("'{}' needs {} bytes, the buffer has {}", text, text.size() + 1, size));
  }
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return GEMMTUNE_SUCCESS;
}

#define GEMMTUNE_NEED(ptr)                                                               \
  do {                                                                                   \
    if ((ptr) == nullptr) return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, #ptr " is null"); \
  } while (false)

gemmtune_status create(gemmtune::Options options, gemmtune_context** context) {
  GEMMTUNE_NEED(context);
  *context = nullptr;
  return guarded([&] {
    // A misspelt backend is a bad setting, not a backend that is not there (the InputError below).
    try {
      (void)gemmtune::parse_backend_kind(options.backend);
    } catch (const gemmtune::InputError& e) {
      return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, e.what());
    }
    try {
      // The one owning raw pointer of the C API: released by gemmtune_destroy.
      *context = std::make_unique<gemmtune_context>(std::move(options)).release();
    } catch (const gemmtune::InputError& e) {
      return fail(GEMMTUNE_ERROR_UNAVAILABLE, e.what());
    }
    return GEMMTUNE_SUCCESS;
  });
}

// The C entry points' gemm. The Context refuses a call no solution can run (api/call_checks.hpp);
// which status a failure gets is decided only once it failed, so that a call that runs pays for
// no check the Context does not make itself.
gemmtune_status run_gemm(gemmtune_context* context, const gemmtune_problem* problem,
                         const gemmtune::Operands& ops, void* stream) {
  GEMMTUNE_NEED(context);
  gemmtune::Problem p;
  if (!to_problem(problem, p)) {
    return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT,
                "invalid problem: an op, dtype or transpose (n, t or c) out of range");
  }
  return guarded([&] {
    const gemmtune::RunStatus status = context->context.gemm(p, ops, stream);
    if (status.ok) return GEMMTUNE_SUCCESS;
    return fail(gemmtune::api::invalid_call(p, ops) ? GEMMTUNE_ERROR_INVALID_ARGUMENT
                                                    : GEMMTUNE_ERROR_RUN_FAILED,
                status.error);
  });
}

}  // namespace

extern "C" {

void gemmtune_problem_init(gemmtune_problem* problem, gemmtune_op op, gemmtune_dtype dtype,
                           char transa, char transb, int64_t m, int64_t n, int64_t k) {
  if (problem == nullptr) return;
  const auto ta = gemmtune::transpose_from_char(transa).value_or(gemmtune::Transpose::N);
  const auto tb = gemmtune::transpose_from_char(transb).value_or(gemmtune::Transpose::N);
  from_problem(
      gemmtune::Problem::make(static_cast<OpKind>(op), static_cast<DType>(dtype), ta, tb, m, n, k),
      problem);
  // What was given, where it is not a transpose: every call with the problem is then refused as
  // invalid, where 'n' in its place would have computed another GEMM without a word.
  if (!gemmtune::transpose_from_char(transa)) problem->transa = transa;
  if (!gemmtune::transpose_from_char(transb)) problem->transb = transb;
}

gemmtune_status gemmtune_problem_parse(const char* op_signature, const char* params_signature,
                                       gemmtune_problem* problem) {
  GEMMTUNE_NEED(op_signature);
  GEMMTUNE_NEED(params_signature);
  GEMMTUNE_NEED(problem);
  return guarded([&] {
    from_problem(gemmtune::parse_problem(op_signature, params_signature), problem);
    return GEMMTUNE_SUCCESS;
  });
}

void gemmtune_options_init(gemmtune_options* o) {
  if (o == nullptr) return;
  static const gemmtune::Options defaults;
  o->enabled = defaults.enabled;
  o->tuning = defaults.tuning;
  o->record_untuned = defaults.record_untuned;
  o->verbose = defaults.verbose;
  o->backend = "auto";
  o->device = defaults.device;
  o->filename = "tunableop_results.csv";
  o->untuned_filename = "tunableop_untuned.csv";
  o->insert_device_ordinal = defaults.insert_device_ordinal;
  o->write_file_on_exit = defaults.write_file_on_exit;
  o->max_tuning_duration_ms = defaults.max_tuning_duration_ms;
  o->max_tuning_iterations = defaults.max_tuning_iterations;
  o->max_warmup_duration_ms = defaults.max_warmup_duration_ms;
  o->max_warmup_iterations = defaults.max_warmup_iterations;
  o->rotating_buffer_mb = defaults.rotating_buffer_mb.value_or(-1);
  o->numerical_check = "on";
  o->workspace_mb = defaults.workspace_mb;
  o->log = nullptr;
  o->log_user_data = nullptr;
}

gemmtune_status gemmtune_create(gemmtune_context** context) {
  return create(gemmtune::Options::from_environment(), context);
}

gemmtune_status gemmtune_create_with_options(const gemmtune_options* o,
                                             gemmtune_context** context) {
  GEMMTUNE_NEED(o);
  GEMMTUNE_NEED(context);
  *context = nullptr;
  return guarded([&] {  // copying the strings may throw
    gemmtune::Options options;
    options.enabled = o->enabled != 0;
    options.tuning = o->tuning != 0;
    options.record_untuned = o->record_untuned != 0;
    options.verbose = o->verbose != 0;
    if (o->backend != nullptr) options.backend = o->backend;
    options.device = o->device;
    if (o->filename != nullptr) options.filename = o->filename;
    if (o->untuned_filename != nullptr) options.untuned_filename = o->untuned_filename;
    options.insert_device_ordinal = o->insert_device_ordinal != 0;
    options.write_file_on_exit = o->write_file_on_exit != 0;
    options.max_tuning_duration_ms = o->max_tuning_duration_ms;
    options.max_tuning_iterations = o->max_tuning_iterations;
    options.max_warmup_duration_ms = o->max_warmup_duration_ms;
    options.max_warmup_iterations = o->max_warmup_iterations;
    // < 0 is the default; NaN is not, and the Context refuses it as any other bad limit.
    if (!(o->rotating_buffer_mb < 0)) options.rotating_buffer_mb = o->rotating_buffer_mb;
    if (o->numerical_check != nullptr) options.numerical_check = o->numerical_check;
    options.workspace_mb = o->workspace_mb;
    if (o->log != nullptr) {
      options.log = [log = o->log, user_data = o->log_user_data](std::string_view message) {
        const std::string terminated(message);  // C wants its NUL
        log(terminated.c_str(), user_data);
      };
    }
    return create(std::move(options), context);  // limits out of range: INVALID_ARGUMENT
  });
}

void gemmtune_destroy(gemmtune_context* context) {
  std::unique_ptr<gemmtune_context> owned(context);  // the destructor never throws
}

gemmtune_status gemmtune_gemm_ex(gemmtune_context* context, const gemmtune_problem* problem,
                                 const void* a, const void* b, void* c, const void* bias,
                                 void* workspace, size_t workspace_bytes, double alpha, double beta,
                                 void* stream) {
  // No scales: a ScaledGemm given here is refused for the want of them.
  return gemmtune_scaled_gemm(context, problem, a, b, c, nullptr, nullptr, bias, workspace,
                              workspace_bytes, alpha, beta, stream);
}

gemmtune_status gemmtune_scaled_gemm(gemmtune_context* context, const gemmtune_problem* problem,
                                     const void* a, const void* b, void* c, const float* scale_a,
                                     const float* scale_b, const void* bias, void* workspace,
                                     size_t workspace_bytes, double alpha, double beta,
                                     void* stream) {
  gemmtune::Operands ops;
  ops.a = a;
  ops.b = b;
  ops.c = c;
  ops.scale_a = scale_a;
  ops.scale_b = scale_b;
  ops.bias = bias;
  ops.workspace = workspace;
  ops.workspace_bytes = workspace_bytes;
  ops.alpha = alpha;
  ops.beta = beta;
  return run_gemm(context, problem, ops, stream);
}

gemmtune_status gemmtune_gemm(gemmtune_context* context, const gemmtune_problem* problem,
                              const void* a, const void* b, void* c, double alpha, double beta,
                              void* stream) {
  return gemmtune_gemm_ex(context, problem, a, b, c, nullptr, nullptr, 0, alpha, beta, stream);
}

gemmtune_status gemmtune_lookup(gemmtune_context* context, const gemmtune_problem* problem,
                                char* name, size_t name_size, gemmtune_source* source) {
  GEMMTUNE_NEED(context);
  gemmtune::Problem p;
  if (!to_problem(problem, p)) return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, "invalid problem");
  return guarded([&] {
    const gemmtune::Lookup l = context->context.lookup(p);
    if (source != nullptr) *source = static_cast<gemmtune_source>(l.source);
    return name == nullptr ? GEMMTUNE_SUCCESS : copy_out(l.solution, name, name_size);
  });
}

#define GEMMTUNE_C_FLAG(set_name, get_name, setter, getter)         \
  gemmtune_status set_name(gemmtune_context* context, int on) {     \
    GEMMTUNE_NEED(context);                                         \
    context->context.setter(on != 0);                               \
    return GEMMTUNE_SUCCESS;                                        \
  }                                                                 \
  int get_name(const gemmtune_context* context) {                   \
    return context != nullptr && context->context.getter() ? 1 : 0; \
  }
GEMMTUNE_C_FLAG(gemmtune_enable, gemmtune_is_enabled, enable, is_enabled)
GEMMTUNE_C_FLAG(gemmtune_tuning_enable, gemmtune_tuning_is_enabled, tuning_enable,
                tuning_is_enabled)
GEMMTUNE_C_FLAG(gemmtune_record_untuned_enable, gemmtune_record_untuned_is_enabled,
                record_untuned_enable, record_untuned_is_enabled)
#undef GEMMTUNE_C_FLAG

gemmtune_status gemmtune_set_verbose(gemmtune_context* context, int on) {
  GEMMTUNE_NEED(context);
  context->context.set_verbose(on != 0);
  return GEMMTUNE_SUCCESS;
}

#define GEMMTUNE_C_SETTING(set_name, get_name, type, setter, getter) \
  gemmtune_status set_name(gemmtune_context* context, type value) {  \
    GEMMTUNE_NEED(context);                                          \
    if (auto why = gemmtune::api::invalid_limit(#set_name, value)) { \
      return fail(GEMMTUNE_ERROR_INVALID_ARGUMENT, *why);            \
    }                                                                \
    context->context.setter(value);                                  \
    return GEMMTUNE_SUCCESS;                                         \
  }                                                                  \
  type get_name(const gemmtune_context* context) {                   \
    return context != nullptr ? context->context.getter() : type{};  \
  }
GEMMTUNE_C_SETTING(gemmtune_set_max_tuning_duration, gemmtune_get_max_tuning_duration, double,
                   set_max_tuning_duration, max_tuning_duration)
GEMMTUNE_C_SETTING(gemmtune_set_max_tuning_iterations, gemmtune_get_max_tuning_iterations, int,
                   set_max_tuning_iterations, max_tuning_iterations)
GEMMTUNE_C_SETTING(gemmtune_set_max_warmup_duration, gemmtune_get_max_warmup_duration, double,
                   set_max_warmup_duration, max_warmup_duration)
GEMMTUNE_C_SETTING(gemmtune_set_max_warmup_iterations, gemmtune_get_max_warmup_iterations, int,
                   set_max_warmup_iterations, max_warmup_iterations)
#undef GEMMTUNE_C_SETTING

gemmtune_status gemmtune_set_rotating_buffer_size(gemmtune_context* context, double mb) {
  GEMMTUNE_NEED(context);
  return guarded([&] {  // NaN and infinity: the setter's std::invalid_argument
    context->context.set_rotating_buffer_size(mb < 0 ? std::nullopt : std::optional<double>(mb));
    return GEMMTUNE_SUCCESS;
  });
}

double gemmtune_get_rotating_buffer_size(const gemmtune_context* context) {
  return context != nullptr ? context->context.rotating_buffer_size().value_or(-1) : -1;
}

gemmtune_status gemmtune_set_numerical_check(gemmtune_context* context, const char* mode) {
  GEMMTUNE_NEED(context);
  GEMMTUNE_NEED(mode);
  return guarded([&] {
    context->context.set_numerical_check(mode);
    return GEMMTUNE_SUCCESS;
  });
}

gemmtune_status gemmtune_get_numerical_check(const gemmtune_context* context, char* mode,
                                             size_t size) {
  GEMMTUNE_NEED(context);
  return guarded([&] { return copy_out(context->context.numerical_check(), mode, size); });
}

gemmtune_status gemmtune_set_filename(gemmtune_context* context, const char* filename,
                                      int insert_device_ordinal) {
  GEMMTUNE_NEED(context);
  GEMMTUNE_NEED(filename);
  return guarded([&] {
    context->context.set_filename(filename, insert_device_ordinal != 0);
    return GEMMTUNE_SUCCESS;
  });
}

gemmtune_status gemmtune_get_filename(const gemmtune_context* context, char* filename,
                                      size_t size) {
  GEMMTUNE_NEED(context);
  return guarded([&] { return copy_out(context->context.filename(), filename, size); });
}

gemmtune_status gemmtune_set_untuned_filename(gemmtune_context* context, const char* filename,
                                              int insert_device_ordinal) {
  GEMMTUNE_NEED(context);
  GEMMTUNE_NEED(filename);
  return guarded([&] {
    context->context.set_untuned_filename(filename, insert_device_ordinal != 0);
    return GEMMTUNE_SUCCESS;
  });
}

gemmtune_status gemmtune_read_file(gemmtune_context* context, const char* filename) {
  GEMMTUNE_NEED(context);
  return guarded([&] {
    const gemmtune::LoadReport r = context->context.read_file(filename != nullptr ? filename : "");
    if (r.accepted) return GEMMTUNE_SUCCESS;
    return fail(r.unreadable ? GEMMTUNE_ERROR_BAD_INPUT : GEMMTUNE_ERROR_VALIDATOR_MISMATCH,
                r.message);
  });
}

gemmtune_status gemmtune_get_load_report(const gemmtune_context* context,
                                         gemmtune_load_report* report, char* message,
                                         size_t message_size) {
  GEMMTUNE_NEED(context);
  GEMMTUNE_NEED(report);
  return guarded([&] {
    const gemmtune::LoadReport r = context->context.load_report();
    report->found = r.found ? 1 : 0;
    report->accepted = r.accepted ? 1 : 0;
    report->entries = r.entries;
    report->bad_lines = r.bad_lines;
    report->unparsed = r.unparsed;
    report->message_length = r.message.size();
    return message == nullptr ? GEMMTUNE_SUCCESS : copy_out(r.message, message, message_size);
  });
}

gemmtune_status gemmtune_write_file(gemmtune_context* context, const char* filename) {
  GEMMTUNE_NEED(context);
  return guarded([&] {
    context->context.write_file(filename != nullptr ? filename : "");
    return GEMMTUNE_SUCCESS;
  });
}

gemmtune_status gemmtune_write_file_on_exit(gemmtune_context* context, int on) {
  GEMMTUNE_NEED(context);
  context->context.write_file_on_exit(on != 0);
  return GEMMTUNE_SUCCESS;
}

gemmtune_status gemmtune_tune_file(gemmtune_context* context, const char* untuned_filename,
                                   size_t* tuned, size_t* failed) {
  GEMMTUNE_NEED(context);
  GEMMTUNE_NEED(untuned_filename);
  return guarded([&] {
    const gemmtune::TuneFileReport r = context->context.tune_file(untuned_filename);
    if (tuned != nullptr) *tuned = r.tuned;
    if (failed != nullptr) *failed = r.failed.size();
    if (r.ok()) return GEMMTUNE_SUCCESS;
    if (!r.file_error.empty()) return fail(GEMMTUNE_ERROR_BAD_INPUT, r.file_error);
    std::string why =
        fmt::format("{} problem(s) not tuned, {} bad line(s)", r.failed.size(), r.bad_lines);
    for (const auto& f : r.failed) why += "\n  " + f;
    return fail(GEMMTUNE_ERROR_BAD_INPUT, std::move(why));
  });
}

const char* gemmtune_last_error(void) {
  return t_last_error.c_str();
}

const char* gemmtune_status_string(gemmtune_status status) {
  switch (status) {
    case GEMMTUNE_SUCCESS:
      return "success";
    case GEMMTUNE_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case GEMMTUNE_ERROR_BAD_INPUT:
      return "bad input";
    case GEMMTUNE_ERROR_VALIDATOR_MISMATCH:
      return "validator mismatch";
    case GEMMTUNE_ERROR_RUN_FAILED:
      return "run failed";
    case GEMMTUNE_ERROR_UNAVAILABLE:
      return "unavailable";
    case GEMMTUNE_ERROR_BUFFER_TOO_SMALL:
      return "buffer too small";
    case GEMMTUNE_ERROR_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

const char* gemmtune_library_version(void) {
  return GEMMTUNE_VERSION_STRING;
}

}  // extern "C"
