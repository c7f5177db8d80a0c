/* gpuwhy sweep --param NAME=V1,V2 -- CMD ... {NAME} ...: one recording per
 * value through the public record API, then the sweep table. */
#include <errno.h>
#include <gpuwhy/compare.h>
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/util.h"
#include "render/renderer_formats.h"
#include "store/store.h"

/* s with every occurrence of pat replaced by with; a new string. */
static char *replace_all(const char *s, const char *pat, const char *with) {
  size_t lp = strlen(pat), lw = strlen(with), count = 0;
  for (const char *p = strstr(s, pat); p; p = strstr(p + lp, pat))
    count++;
  char *out = gw_xcalloc(strlen(s) + count * lw + 1, 1);
  char *w = out;
  for (const char *p = s;;) {
    const char *hit = strstr(p, pat);
    size_t keep = hit ? (size_t)(hit - p) : strlen(p);
    memcpy(w, p, keep);
    w += keep;
    if (!hit)
      break;
    memcpy(w, with, lw);
    w += lw;
    p = hit + lp;
  }
  *w = '\0';
  return out;
}

/* File-name-safe copy: anything but letters, digits, '.', '-' and '_' becomes '_'. */
static void safe_name(const char *s, char *out, size_t cap) {
  size_t j = 0;
  for (; *s && j + 1 < cap; s++) {
    char c = *s;
    int ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    out[j++] = ok ? c : '_';
  }
  out[j] = '\0';
}

/* Label the recording so that `sweep --from` and compare know the value. */
static void label_recording(const char *path, const char *param, const char *value, int is_batch) {
  struct gw_store *st = NULL;
  struct gw_err err;
  if (gw_store_open(&st, path, 0, &err) != GW_OK)
    return;
  double batch;
  int bad =
      gw_store_put_meta(st, "sweep_param", param) != GW_OK || gw_store_put_meta(st, "sweep_value", value) != GW_OK;
  /* the batch size is the samples each step carries */
  if (is_batch && gw_parse_double(value, &batch) == 0 && batch > 0)
    bad |= gw_store_put_meta(st, "samples_per_step", value) != GW_OK;
  if (bad || gw_store_commit(st) != GW_OK)
    fprintf(stderr, _("gpuwhy sweep: could not label %s with %s=%s\n"), path, param, value);
  gw_store_close(st);
}

int gw_sweep_run(const struct gw_sweep_run_opts *run, const struct gw_sweep_opts *opts, FILE *out, char *errbuf,
                 size_t errcap) {
  if (!run->param || !run->param[0] || run->nvalues < 1 || !run->argv || !run->argv[0])
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("a sweep needs --param NAME=V1,V2,... and a command"));
  if (!(gw_sweep_formats() & GW_FORMAT_BIT(opts->format))) /* refused before any run, not after them all */
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("sweep renders %s only"),
                          gw_format_names(gw_sweep_formats()).text);
  char pat[160];
  snprintf(pat, sizeof pat, "{%s}", run->param);
  int argc = 0, used = 0;
  for (; run->argv[argc]; argc++)
    used |= strstr(run->argv[argc], pat) != NULL;
  if (!used)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE,
                          _("the command never mentions %s, so every run would be the same"), pat);
  const char *dir = run->out_dir && run->out_dir[0] ? run->out_dir : ".";
  if (gw_mkdir_p(dir) != 0)
    return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("cannot create %s: %s"), dir, strerror(errno));

  char **paths = gw_xcalloc((size_t)run->nvalues, sizeof *paths);
  const char **values = gw_xcalloc((size_t)run->nvalues, sizeof *values);
  char **args = gw_xcalloc((size_t)argc + 1, sizeof *args);
  int done = 0, rc = GPUWHY_EXIT_OK;
  char sparam[64];
  safe_name(run->param, sparam, sizeof sparam);
  for (int v = 0; v < run->nvalues && rc == GPUWHY_EXIT_OK; v++) {
    char svalue[64], path[1200];
    safe_name(run->values[v], svalue, sizeof svalue);
    int w = snprintf(path, sizeof path, "%s/sweep_%s_%s.db", dir, sparam, svalue);
    if (w < 0 || (size_t)w >= sizeof path) {
      rc = gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_INPUT, _("recording path in %s too long"), dir);
      break;
    }
    for (int i = 0; i < argc; i++)
      args[i] = replace_all(run->argv[i], pat, run->values[v]);
    args[argc] = NULL;
    if (!run->quiet)
      fprintf(stderr, _("gpuwhy sweep: %s=%s (%d of %d) -> %s\n"), run->param, run->values[v], v + 1, run->nvalues,
              path);
    struct gw_record_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.out_path = path;
    ro.interval_ms = run->interval_ms > 0 ? run->interval_ms : 100;
    ro.gpm_interval_ms = ro.interval_ms > 500 ? ro.interval_ms : 500;
    ro.argv = args;
    ro.quiet = run->quiet;
    ro.nvml_lib = run->nvml_lib;
    char msg[1024] = "";
    int status = gw_record_run(&ro, msg, sizeof msg);
    for (int i = 0; i < argc; i++)
      free(args[i]);
    if (msg[0])
      fprintf(stderr, "gpuwhy sweep: %s=%s: %s\n", run->param, run->values[v], msg);
    if (access(path, F_OK) != 0) {
      rc = gw_errbuf_fail(errbuf, errcap, status ? status : GPUWHY_EXIT_INPUT, _("no recording made for %s=%s%s%s"),
                          run->param, run->values[v], msg[0] ? ": " : "", msg);
      break;
    }
    label_recording(path, run->param, run->values[v], opts->param_is_batch);
    paths[done] = gw_xstrdup(path);
    values[done] = run->values[v];
    done++;
    if (status == 128 + SIGINT || status == 128 + SIGTERM || status == 128 + SIGHUP) {
      /* interrupted: show what was measured, then stop as the signal asked */
      fprintf(stderr, _("gpuwhy sweep: interrupted after %d of %d values\n"), done, run->nvalues);
      rc = status;
    } else if (status != 0) {
      fprintf(stderr, _("gpuwhy sweep: %s=%s: the command exited with status %d; its row may be partial\n"), run->param,
              run->values[v], status);
    }
  }
  if (done > 0) {
    struct gw_sweep_opts o = *opts;
    o.param = run->param;
    char err2[1024] = "";
    int trc = gw_sweep_table((const char *const *)paths, values, done, &o, out, err2, sizeof err2);
    if (trc != GPUWHY_EXIT_OK && rc == GPUWHY_EXIT_OK)
      rc = gw_errbuf_fail(errbuf, errcap, trc, "%s", err2);
  }
  for (int i = 0; i < done; i++)
    free(paths[i]);
  free(paths);
  free(values);
  free(args);
  return rc;
}
