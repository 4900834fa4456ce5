/* gemmtune.h — the C API: tuned GEMMs for callers in C and other languages.
 *
 * The same verbs as the C++ gemmtune::Context (gemmtune/context.hpp), behind an opaque handle:
 *
 *   gemmtune_context* ctx = NULL;
 *   if (gemmtune_create(&ctx) != GEMMTUNE_SUCCESS) puts(gemmtune_last_error());
 *   gemmtune_problem p;
 *   gemmtune_problem_init(&p, GEMMTUNE_OP_GEMM, GEMMTUNE_FLOAT32, 'n', 'n', m, n, k);
 *   gemmtune_gemm(ctx, &p, A, B, C, 1.0, 0.0, stream);
 *   gemmtune_destroy(ctx);
 *
 * Ownership: gemmtune_create* allocates the context; gemmtune_destroy frees it (NULL is fine).
 * Every function returns a status; on failure gemmtune_last_error() describes the last failure of
 * the calling thread (valid until that thread's next failing call). Strings passed in are copied.
 * Thread safety: as the C++ Context — one context may be used from several threads at once.
 * Compatibility: the libraries are static and 0.x; structs may grow (at their end) between
 * versions, so build against the header of the library you link.
 */
#ifndef GEMMTUNE_H
#define GEMMTUNE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemmtune_context gemmtune_context;

typedef enum gemmtune_status {
  GEMMTUNE_SUCCESS = 0,
  GEMMTUNE_ERROR_INVALID_ARGUMENT = 1,   /* a null pointer, a bad problem or setting */
  GEMMTUNE_ERROR_BAD_INPUT = 2,          /* a file could not be read, a signature not parsed */
  GEMMTUNE_ERROR_VALIDATOR_MISMATCH = 3, /* a results file measured elsewhere: not used */
  GEMMTUNE_ERROR_RUN_FAILED = 4,         /* the solution (or Default) failed to run the GEMM */
  GEMMTUNE_ERROR_UNAVAILABLE = 5,        /* the backend or device asked for is not there (no GPU,
                                            no CUDA, a device number the backend lacks) */
  GEMMTUNE_ERROR_BUFFER_TOO_SMALL = 6,   /* an output string did not fit */
  GEMMTUNE_ERROR_INTERNAL = 7
} gemmtune_status;

/* Same order as gemmtune::OpKind and gemmtune::DType. */
typedef enum gemmtune_op {
  GEMMTUNE_OP_GEMM = 0,
  GEMMTUNE_OP_GEMM_AND_BIAS = 1,
  GEMMTUNE_OP_GEMM_STRIDED_BATCHED = 2,
  GEMMTUNE_OP_SCALED_GEMM = 3
} gemmtune_op;

typedef enum gemmtune_dtype {
  GEMMTUNE_FLOAT32 = 0,
  GEMMTUNE_TF32 = 1,
  GEMMTUNE_FLOAT64 = 2,
  GEMMTUNE_BFLOAT16 = 3,
  GEMMTUNE_FLOAT16 = 4,
  GEMMTUNE_FLOAT8_E4M3 = 5,
  GEMMTUNE_FLOAT8_E5M2 = 6,
  GEMMTUNE_FLOAT8_E4M3FNUZ = 7,
  GEMMTUNE_FLOAT8_E5M2FNUZ = 8,
  GEMMTUNE_COMPLEX_FLOAT32 = 9,
  GEMMTUNE_COMPLEX_FLOAT64 = 10
} gemmtune_dtype;

/* Why gemmtune_lookup chose what it chose (gemmtune::Source). */
typedef enum gemmtune_source {
  GEMMTUNE_SOURCE_TUNED = 0,
  GEMMTUNE_SOURCE_FALLBACK = 1,
  GEMMTUNE_SOURCE_UNTUNED = 2,
  GEMMTUNE_SOURCE_DISABLED = 3
} gemmtune_source;

/* One GEMM, column-major, as the BLAS call sees it (see gemmtune/problem.hpp). */
typedef struct gemmtune_problem {
  gemmtune_op op;
  char transa, transb; /* 'n', 't' or 'c' */
  int64_t m, n, k;
  int64_t lda, ldb, ldc;
  int64_t batch;
  int64_t stride_a, stride_b, stride_c; /* 0: dense */
  gemmtune_dtype a_type, b_type, c_type;
  int rowwise;   /* ScaledGemm only */
  int bias_type; /* a gemmtune_dtype, or -1 for none */
} gemmtune_problem;

/* Fills a problem whose three types are `dtype`, with the smallest leading dimensions. A transpose
 * other than 'n', 't' or 'c' (either case) is kept as given, and every call with the problem then
 * fails with GEMMTUNE_ERROR_INVALID_ARGUMENT. */
void gemmtune_problem_init(gemmtune_problem* problem, gemmtune_op op, gemmtune_dtype dtype,
                           char transa, char transb, int64_t m, int64_t n, int64_t k);
/* Parses TunableOp's signatures ("GemmTunableOp_float_NN", "nn_64_64_64_ld_64_64_64"). */
gemmtune_status gemmtune_problem_parse(const char* op_signature, const char* params_signature,
                                       gemmtune_problem* problem);

/* Everything gemmtune::Options holds that C can say; strings are copied at create. Fill it with
 * gemmtune_options_init first: fields are added at its end as the library grows. */
typedef struct gemmtune_options {
  int enabled, tuning, record_untuned, verbose;
  const char* backend; /* "auto", "cpu", "cuda" */
  int device;
  const char* filename;
  const char* untuned_filename;
  int insert_device_ordinal;
  int write_file_on_exit;
  double max_tuning_duration_ms;
  int max_tuning_iterations;
  double max_warmup_duration_ms;
  int max_warmup_iterations;
  double rotating_buffer_mb;   /* footprint of rotating operand copies, MiB; < 0: the default
                                  (at least twice the last-level cache); 0: off */
  const char* numerical_check; /* "on", "off" or "ATOL_RTOL" (e.g. "1e-2_1e-2"); NULL: "on" */
  size_t workspace_mb;         /* largest workspace a candidate may use, and the one handed to a
                                  solution when a call passes none; at most 1048576 (1 TiB) */
  /* Where the context's messages go (refused files, bad lines, fallbacks, with verbose what it
   * loads and tunes); NULL: stderr. Called from whichever thread has something to say, possibly
   * several at once, from gemmtune_create_with_options until gemmtune_destroy returns (which may
   * report a failed write-on-exit): log_user_data must live as long. `message` is valid during
   * the call only. */
  void (*log)(const char* message, void* log_user_data);
  void* log_user_data;
} gemmtune_options;

/* The defaults (no environment). */
void gemmtune_options_init(gemmtune_options* options);

/* From the GEMMTUNE_* environment variables (read once, now). */
gemmtune_status gemmtune_create(gemmtune_context** context);
gemmtune_status gemmtune_create_with_options(const gemmtune_options* options,
                                             gemmtune_context** context);
void gemmtune_destroy(gemmtune_context* context);

/* C = alpha·op(A)·op(B) + beta·C on `stream` (cudaStream_t, or NULL). */
gemmtune_status gemmtune_gemm(gemmtune_context* context, const gemmtune_problem* problem,
                              const void* a, const void* b, void* c, double alpha, double beta,
                              void* stream);
/* With a bias (GemmAndBias) and an optional workspace of your own (NULL, 0: the context's). */
gemmtune_status gemmtune_gemm_ex(gemmtune_context* context, const gemmtune_problem* problem,
                                 const void* a, const void* b, void* c, const void* bias,
                                 void* workspace, size_t workspace_bytes, double alpha, double beta,
                                 void* stream);
/* ScaledGemm (fp8): D = alpha·scale_a·scale_b·op(A)·op(B) (+ bias) + beta·C, with the scales as
 * device pointers to float (one each, or m and n of them where the problem is row-wise) and an
 * optional bias (NULL: none) and workspace. Missing scales are GEMMTUNE_ERROR_INVALID_ARGUMENT. */
gemmtune_status gemmtune_scaled_gemm(gemmtune_context* context, const gemmtune_problem* problem,
                                     const void* a, const void* b, void* c, const float* scale_a,
                                     const float* scale_b, const void* bias, void* workspace,
                                     size_t workspace_bytes, double alpha, double beta,
                                     void* stream);
/* The solution gemmtune_gemm would run: its name into `name` (NUL-terminated), and why. */
gemmtune_status gemmtune_lookup(gemmtune_context* context, const gemmtune_problem* problem,
                                char* name, size_t name_size, gemmtune_source* source);

/* Modes: on = non-zero. */
gemmtune_status gemmtune_enable(gemmtune_context* context, int on);
int gemmtune_is_enabled(const gemmtune_context* context);
gemmtune_status gemmtune_tuning_enable(gemmtune_context* context, int on);
int gemmtune_tuning_is_enabled(const gemmtune_context* context);
gemmtune_status gemmtune_record_untuned_enable(gemmtune_context* context, int on);
int gemmtune_record_untuned_is_enabled(const gemmtune_context* context);
gemmtune_status gemmtune_set_verbose(gemmtune_context* context, int on);

gemmtune_status gemmtune_set_max_tuning_duration(gemmtune_context* context, double ms);
double gemmtune_get_max_tuning_duration(const gemmtune_context* context);
gemmtune_status gemmtune_set_max_tuning_iterations(gemmtune_context* context, int iterations);
int gemmtune_get_max_tuning_iterations(const gemmtune_context* context);
gemmtune_status gemmtune_set_max_warmup_duration(gemmtune_context* context, double ms);
double gemmtune_get_max_warmup_duration(const gemmtune_context* context);
gemmtune_status gemmtune_set_max_warmup_iterations(gemmtune_context* context, int iterations);
int gemmtune_get_max_warmup_iterations(const gemmtune_context* context);
/* MiB of rotating operand copies; < 0: the default (at least twice the last-level cache). */
gemmtune_status gemmtune_set_rotating_buffer_size(gemmtune_context* context, double mb);
double gemmtune_get_rotating_buffer_size(const gemmtune_context* context); /* -1: the default */
/* "on", "off" or "ATOL_RTOL"; anything else is GEMMTUNE_ERROR_INVALID_ARGUMENT. */
gemmtune_status gemmtune_set_numerical_check(gemmtune_context* context, const char* mode);
/* The mode as set, NUL-terminated; GEMMTUNE_ERROR_BUFFER_TOO_SMALL where it does not fit. */
gemmtune_status gemmtune_get_numerical_check(const gemmtune_context* context, char* mode,
                                             size_t size);

/* Files. A NULL filename means the context's results file. */
gemmtune_status gemmtune_set_filename(gemmtune_context* context, const char* filename,
                                      int insert_device_ordinal);
gemmtune_status gemmtune_get_filename(const gemmtune_context* context, char* filename, size_t size);
gemmtune_status gemmtune_set_untuned_filename(gemmtune_context* context, const char* filename,
                                              int insert_device_ordinal);
/* GEMMTUNE_ERROR_VALIDATOR_MISMATCH or _BAD_INPUT when the file is refused (none of it is used:
 * the context keeps running what it ran before, Default where it had nothing;
 * gemmtune_last_error() explains). A missing file is a success. */
gemmtune_status gemmtune_read_file(gemmtune_context* context, const char* filename);
/* What the last load did (at create, or gemmtune_read_file): a file with bad lines is still
 * used, loads with GEMMTUNE_SUCCESS, and says what it skipped here (and in the log). `message`
 * (may be NULL) gets the explanation for a person, which names every bad line; where it does not
 * fit, the report is still filled, the message is cut to fit and the status is
 * GEMMTUNE_ERROR_BUFFER_TOO_SMALL (message_length + 1 bytes hold it whole). */
typedef struct gemmtune_load_report {
  int found;             /* the file exists */
  int accepted;          /* read, and measured in this environment (or no file at all) */
  size_t entries;        /* results now used for lookup */
  size_t bad_lines;      /* lines skipped; the rest of the file is used */
  size_t unparsed;       /* kept for gemmtune_write_file but not used (kinds this version lacks) */
  size_t message_length; /* bytes of the message, without its NUL */
} gemmtune_load_report;
gemmtune_status gemmtune_get_load_report(const gemmtune_context* context,
                                         gemmtune_load_report* report, char* message,
                                         size_t message_size);
gemmtune_status gemmtune_write_file(gemmtune_context* context, const char* filename);
gemmtune_status gemmtune_write_file_on_exit(gemmtune_context* context, int on);
/* Tunes every problem of an untuned file that has no result yet; `tuned` and `failed` may be
 * NULL. GEMMTUNE_ERROR_BAD_INPUT when some problems could not be tuned or lines were bad. */
gemmtune_status gemmtune_tune_file(gemmtune_context* context, const char* untuned_filename,
                                   size_t* tuned, size_t* failed);

const char* gemmtune_last_error(void);
const char* gemmtune_status_string(gemmtune_status status);
const char* gemmtune_library_version(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_H */
