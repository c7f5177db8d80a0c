/* Everything gpuwhy does with a recording someone hands it, run on one file:
 * open it (read-only and read-write), the report in every format through
 * the public entry point, the HTML page, the Perfetto export and the run
 * summary that compare and baseline use. Each must succeed or fail with a
 * message; a crash, a leak or a sanitizer report is a bug. Shared by
 * fuzz_recording (hostile bytes) and fuzz_recording_sql (hostile rows). */
#ifndef GW_FUZZ_RECORDING_H
#define GW_FUZZ_RECORDING_H

#include <gpuwhy/export.h>
#include <gpuwhy/report.h>

#include "compare/run_load.h"
#include "fuzz_util.h"
#include "render/report_html.h"
#include "store/store.h"

/* The files SQLite keeps beside a database. */
static inline void fuzz_remove_db(const char *path) {
  static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
    char p[600];
    snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
    unlink(p);
  }
}

static inline FILE *fuzz_devnull(void) {
  static FILE *f;
  if (!f && !(f = fopen("/dev/null", "w")))
    abort();
  return f;
}

/* Which of the slower readers runs on an input: one per input, chosen from
 * its bytes, keeps a run fast while the corpus covers all of them. */
static inline unsigned fuzz_pick(const uint8_t *data, size_t size, unsigned n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; i++)
    h = (h ^ data[i]) * 16777619u;
  return h % n;
}

#define FUZZ_NREADERS 5

/* must_read: the file was written by gpuwhy itself (an import), so opening
 * it and reporting on it have to succeed. */
static inline void fuzz_read_recording(const char *path, unsigned pick, int must_read) {
  struct gw_err err = {{0}};
  struct gw_store *st = NULL;
  gw_status open_rc = gw_store_open(&st, path, 1, &err);
  FUZZ_CHECK(open_rc == GW_OK ? st != NULL : err.msg[0] != '\0');
  gw_store_close(st);

  /* The public entry point of `gpuwhy report`. */
  struct gw_report_opts opts = {GW_REPORT_JSON, 0};
  char msg[512] = "";
  int rc = gw_report_file(path, &opts, fuzz_devnull(), msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || (rc == 3 && msg[0] != '\0'));
  FUZZ_CHECK(open_rc == GW_OK || rc == 3); /* a file the store refuses is never reported on */
  if (must_read && rc != 0) {
    fprintf(stderr, "gpuwhy cannot report on a recording it wrote: %s\n", msg);
    abort();
  }
  if (open_rc != GW_OK)
    return;

  err.msg[0] = '\0';
  switch (pick % FUZZ_NREADERS) {
  case 0: { /* the other report formats */
    struct gw_report_opts text = {GW_REPORT_TEXT, 1}, md = {GW_REPORT_MD, 0};
    FUZZ_CHECK(gw_report_file(path, &text, fuzz_devnull(), msg, sizeof msg) == rc);
    FUZZ_CHECK(gw_report_file(path, &md, fuzz_devnull(), msg, sizeof msg) == rc);
    break;
  }
  case 1:
    if (gw_render_html_file(path, fuzz_devnull(), &err) != GW_OK)
      FUZZ_CHECK(err.msg[0] != '\0');
    break;
  case 2: {
    unsigned long long nevents = 0;
    msg[0] = '\0';
    rc = gw_export_perfetto_file(path, fuzz_devnull(), &nevents, msg, sizeof msg);
    FUZZ_CHECK(rc == 0 || (rc == 3 && msg[0] != '\0'));
    break;
  }
  case 3: { /* what compare, baseline and sweep read */
    struct gw_run_summary *sum = calloc(1, sizeof *sum);
    if (gw_run_summary_load(path, sum, &err) == GW_OK)
      gw_run_summary_free(sum);
    else
      FUZZ_CHECK(err.msg[0] != '\0');
    free(sum);
    break;
  }
  default: /* read-write, as gpuwhy sweep does when it adds its meta rows */
    if (gw_store_open(&st, path, 0, &err) == GW_OK) {
      (void)gw_store_put_meta(st, "fuzz", "1");
      gw_store_close(st);
    } else {
      FUZZ_CHECK(err.msg[0] != '\0');
    }
  }
}

#endif
