#include "cli.h"

#include <errno.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/i18n.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *command_name = "";

void gw_cli_set_command(const char *name) {
  command_name = name ? name : "";
}

const char *gw_cli_command(void) {
  return command_name;
}

/* "gpuwhy report" or plain "gpuwhy" before a command is known. */
static void print_prefix(FILE *out) {
  fprintf(out, command_name[0] ? "gpuwhy %s: " : "gpuwhy: ", command_name);
}

static void print_try_help(void) {
  if (command_name[0])
    fprintf(stderr, _("Try 'gpuwhy %s --help' for more.\n"), command_name);
  else
    fputs(_("Try 'gpuwhy --help' for more.\n"), stderr);
}

int gw_cli_usage_error(const char *usage, const char *fmt, ...) {
  (void)usage;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    print_prefix(stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
  }
  print_try_help();
  return GPUWHY_EXIT_USAGE;
}

int gw_cli_option_error(int c, int argc, char **argv) {
  /* getopt_long leaves optind past the word it stopped at, except inside a
   * group of short options ("-qz"); optopt is the short option, 0 for an
   * unknown long one. */
  const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
  int short_opt = optopt > 0 && optopt < 128 && word[0] == '-' && word[1] != '-';
  if (c == ':') {
    if (short_opt)
      return gw_cli_usage_error(NULL, _("option -%c needs a value"), optopt);
    return gw_cli_usage_error(NULL, _("option '%s' needs a value"), word);
  }
  if (short_opt || (optopt > 0 && optopt < 128 && word[0] != '-'))
    return gw_cli_usage_error(NULL, _("unknown option -%c"), optopt);
  return gw_cli_usage_error(NULL, _("unknown option '%s'"), word);
}

int gw_cli_version(void) {
  printf("gpuwhy %s\n", gw_version());
  return GPUWHY_EXIT_OK;
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

int gw_cli_parse_color(const char *when, enum gw_color_mode *mode) {
  if (!when) { /* --color alone, as ls and grep take it */
    *mode = GW_COLOR_ALWAYS;
    return 0;
  }
  if (gw_color_mode_parse(when, mode) == 0)
    return 0;
  return gw_cli_usage_error(NULL, _("--color takes auto, always or never, got '%s'"), when ? when : "");
}

static int ends_with(const char *s, size_t len, const char *suffix) {
  size_t n = strlen(suffix);
  return len >= n && strncmp(s + len - n, suffix, n) == 0;
}

int gw_cli_path_is_gz(const char *path) {
  return path && ends_with(path, strlen(path), ".gz");
}

int gw_cli_format_from_path(const char *path, unsigned have, enum gw_report_format *format) {
  static const struct {
    const char *ext;
    enum gw_report_format format;
  } exts[] = {{".json", GW_REPORT_JSON}, {".md", GW_REPORT_MD},    {".markdown", GW_REPORT_MD},
              {".html", GW_REPORT_HTML}, {".htm", GW_REPORT_HTML}, {".txt", GW_REPORT_TEXT}};
  if (!path)
    return -1;
  size_t len = strlen(path);
  if (ends_with(path, len, ".gz"))
    len -= 3;
  for (size_t i = 0; i < sizeof exts / sizeof *exts; i++)
    if (ends_with(path, len, exts[i].ext) && (have & GW_FORMAT_BIT(exts[i].format))) {
      *format = exts[i].format;
      return 0;
    }
  return -1;
}

int gw_cli_write_output(FILE *tmp, const char *path) {
  if (fflush(tmp) != 0 || fseek(tmp, 0, SEEK_SET) != 0)
    return -1;
  char buf[65536];
  size_t n;
  if (!gw_cli_path_is_gz(path)) {
    FILE *out = fopen(path, "w");
    if (!out)
      return -1;
    while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
      if (fwrite(buf, 1, n, out) != n)
        break;
    int failed = ferror(tmp) || ferror(out);
    return fclose(out) != 0 || failed ? -1 : 0;
  }
  gzFile gz = gzopen(path, "wb");
  if (!gz)
    return -1;
  int failed = 0;
  while (!failed && (n = fread(buf, 1, sizeof buf, tmp)) > 0)
    failed = gzwrite(gz, buf, (unsigned)n) != (int)n;
  failed |= ferror(tmp) != 0;
  if (gzclose(gz) != Z_OK || failed) {
    if (!errno)
      errno = EIO;
    return -1;
  }
  return 0;
}
