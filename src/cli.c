#include "cli.h"

#include <errno.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int gw_cli_usage_error(const char *usage, const char *fmt, ...) {
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuwhy: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n\n", stderr);
    va_end(ap);
  }
  fputs(usage, stderr);
  return GPUWHY_EXIT_USAGE;
}

int gw_cli_parse_int(const char *s, int min, int max, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < min || v > max)
    return -1;
  *out = (int)v;
  return 0;
}

int gw_cli_parse_seconds(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v <= 0)
    return -1;
  *out = v;
  return 0;
}
