/* A recording or a baseline file into a run summary (see run_load.h). */
#include "compare/run_load.h"

#include <stdio.h>
#include <sys/stat.h>

#include "analysis/series.h"
#include "compare/baseline_file.h"

static int looks_like_json(const char *path) {
  /* only a regular file is read: a pipe without a writer would block (the store refuses the rest) */
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  int c;
  while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t')
    ;
  fclose(f);
  return c == '{';
}

gw_status gw_run_summary_load(const char *path, struct gw_run_summary *s, struct gw_err *err) {
  gw_run_summary_init(s, path);
  if (looks_like_json(path)) {
    gw_status rc = gw_baseline_file_read(path, s, err);
    if (rc)
      gw_run_summary_free(s);
    return rc;
  }
  /* one open: the setup and meta are read through the loaded recording's connection */
  struct gw_recording *rec = NULL;
  gw_status rc = gw_recording_load(path, &rec, err);
  if (rc) {
    gw_run_summary_free(s);
    return rc;
  }
  if ((rc = gw_run_summary_begin(rec, path, s, err))) {
    gw_recording_free(rec);
    return rc;
  }
  rc = gw_run_summary_from_recording(rec, path, s, err);
  gw_recording_free(rec);
  if (rc)
    gw_run_summary_free(s);
  return rc;
}
