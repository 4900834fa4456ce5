/* app_lookup_c: the C API — create a context from explicit options (the defaults, the CPU
 * backend, and the results file GEMMTUNE_FILENAME names, if set; no other GEMMTUNE_* variable is
 * read: gemmtune_create() is the call that reads them all), say what loading that file found,
 * run one GEMM, and print which solution ran. Runs on the CPU backend (host pointers); exits 1 on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmtune/gemmtune.h"

int main(void) {
  gemmtune_context* ctx = NULL;
  gemmtune_options options;
  gemmtune_options_init(&options);
  options.backend = "cpu";
  options.filename = getenv("GEMMTUNE_FILENAME") ? getenv("GEMMTUNE_FILENAME") : options.filename;
  if (gemmtune_create_with_options(&options, &ctx) != GEMMTUNE_SUCCESS) {
    fprintf(stderr, "gemmtune_create: %s\n", gemmtune_last_error());
    return 1;
  }
  /* A results file with bad lines is still used; the load report says what was skipped. Its
   * message names every bad line: cut to fit (BUFFER_TOO_SMALL) it still begins with the count. */
  gemmtune_load_report report;
  char why[512];
  const gemmtune_status reported = gemmtune_get_load_report(ctx, &report, why, sizeof why);
  if ((reported == GEMMTUNE_SUCCESS || reported == GEMMTUNE_ERROR_BUFFER_TOO_SMALL) &&
      report.found) {
    printf("C API: %zu result(s) loaded, %zu bad line(s) skipped%s%s\n", report.entries,
           report.bad_lines, report.bad_lines ? ": " : "", report.bad_lines ? why : "");
  }
  gemmtune_problem p;
  if (gemmtune_problem_parse("GemmTunableOp_float_NN", "nn_256_256_256_ld_256_256_256", &p) !=
      GEMMTUNE_SUCCESS) {
    fprintf(stderr, "parse: %s\n", gemmtune_last_error());
    return 1;
  }
  const size_t count = 256 * 256;
  float* a = malloc(count * sizeof *a);
  float* b = malloc(count * sizeof *b);
  float* c = malloc(count * sizeof *c);
  for (size_t i = 0; i < count; ++i) a[i] = b[i] = 0.5f;
  int rc = 0;
  if (gemmtune_gemm(ctx, &p, a, b, c, 1.0, 0.0, NULL) != GEMMTUNE_SUCCESS) {
    fprintf(stderr, "gemm: %s\n", gemmtune_last_error());
    rc = 1;
  } else if (c[0] != 64.0f || c[count - 1] != 64.0f) {
    fprintf(stderr, "wrong result: %g\n", (double)c[0]);
    rc = 1;
  }
  char name[256];
  gemmtune_source source;
  if (rc == 0 && gemmtune_lookup(ctx, &p, name, sizeof name, &source) == GEMMTUNE_SUCCESS) {
    printf("C API: gemmtune %s ran %s (%s) for GemmTunableOp_float_NN,nn_256_256_256\n",
           gemmtune_library_version(), name,
           source == GEMMTUNE_SOURCE_TUNED ? "tuned" : "not tuned");
  }
  free(a);
  free(b);
  free(c);
  gemmtune_destroy(ctx);
  return rc;
}
