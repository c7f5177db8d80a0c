/* Public entry points behind include/gpuwhy/report.h: load, diagnose,
 * render; and the quick reference of the bottleneck classes. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/node_merge.h"
#include "analysis/rules.h"
#include "core/i18n.h"
#include "render/class_text.h"
#include "render/note_text.h"
#include "render/report_html.h"
#include "render/report_render.h"
#include "store/store_job.h"
#include "render/renderer_formats.h"

/* A build may add formats without editing this file: GW_EXTRA_REPORT_FORMATS
 * names a header that declares each renderer and lists its rows as
 * GW_EXTRA_REPORT_FORMAT_ROWS, X(name, format, render) each (tests/format5;
 * no product target defines it). */
#ifdef GW_EXTRA_REPORT_FORMATS
#include GW_EXTRA_REPORT_FORMATS
#endif

/* Every format name; the first name of a format is the one listed to users. */
static const struct {
  const char *name;
  enum gw_report_format fmt;
} format_names[] = {{"text", GW_REPORT_TEXT},   {"json", GW_REPORT_JSON}, {"md", GW_REPORT_MD},
                    {"markdown", GW_REPORT_MD}, {"html", GW_REPORT_HTML},
#ifdef GW_EXTRA_REPORT_FORMAT_ROWS
#define X(name, format, render) {name, format},
                    GW_EXTRA_REPORT_FORMAT_ROWS
#undef X
#endif
};

int gw_report_format_from_name(const char *name, enum gw_report_format *out) {
  for (size_t i = 0; name && i < sizeof format_names / sizeof format_names[0]; i++)
    if (strcmp(name, format_names[i].name) == 0) {
      *out = format_names[i].fmt;
      return 0;
    }
  return -1;
}

void gw_format_list(unsigned have, char *list, size_t listcap) {
  size_t used = 0;
  unsigned listed = 0;
  if (listcap)
    list[0] = '\0';
  for (size_t i = 0; i < sizeof format_names / sizeof format_names[0] && used < listcap; i++) {
    unsigned bit = GW_FORMAT_BIT(format_names[i].fmt);
    if (!(have & bit) || (listed & bit))
      continue;
    int w = snprintf(list + used, listcap - used, "%s%s", listed ? ", " : "", format_names[i].name);
    if (w < 0)
      break;
    used += (size_t)w;
    listed |= bit;
  }
}

int gw_format_pick(unsigned have, const char *name, enum gw_report_format *out, char *list, size_t listcap) {
  enum gw_report_format f;
  if (gw_report_format_from_name(name, &f) == 0 && (have & GW_FORMAT_BIT(f))) {
    *out = f;
    return 0;
  }
  gw_format_list(have, list, listcap);
  return -1;
}

static void render_text(const struct gw_diagnosis *dx, FILE *out, int color) {
  gw_render_text(dx, out, color);
}
static void render_json(const struct gw_diagnosis *dx, FILE *out, int color) {
  (void)color;
  gw_render_json(dx, out);
}
static void render_md(const struct gw_diagnosis *dx, FILE *out, int color) {
  (void)color;
  gw_render_md(dx, out);
}

/* The report's renderers. HTML draws the samples themselves, which the
 * diagnosis does not keep, so its row has no diagnosis renderer: the
 * recording is rendered whole (gw_render_html). */
static const struct report_renderer {
  enum gw_report_format format;
  void (*render)(const struct gw_diagnosis *dx, FILE *out, int color);
} report_renderers[] = {{GW_REPORT_TEXT, render_text},
                        {GW_REPORT_JSON, render_json},
                        {GW_REPORT_MD, render_md},
                        {GW_REPORT_HTML, NULL},
#ifdef GW_EXTRA_REPORT_FORMAT_ROWS
#define X(name, format, render) {format, render},
                        GW_EXTRA_REPORT_FORMAT_ROWS
#undef X
#endif
};

unsigned gw_report_formats(void) {
  return GW_RENDERER_TABLE_FORMATS(report_renderers);
}

static void render(const struct gw_diagnosis *dx, const struct gw_report_opts *opts, FILE *out) {
  for (size_t i = 0; i < sizeof report_renderers / sizeof report_renderers[0]; i++)
    if (report_renderers[i].format == opts->format && report_renderers[i].render) {
      report_renderers[i].render(dx, out, opts->color);
      return;
    }
  gw_render_text(dx, out, opts->color);
}

static int report_file(const char *path, const struct gw_report_opts *opts, FILE *out, char *errbuf, size_t errcap) {
  struct gw_err err = {{0}};
  struct gw_diagnosis *dx = NULL;
  if (opts->format == GW_REPORT_HTML) {
    /* the page draws the samples themselves, which the diagnosis does not keep */
    if (gw_render_html_file(path, out, &err) == GW_OK)
      return GPUWHY_EXIT_OK;
    if (errbuf && errcap)
      gw_strlcpy(errbuf, err.msg, errcap);
    return GPUWHY_EXIT_INPUT;
  }
  if (gw_diagnose_file(path, &dx, &err) != GW_OK) {
    if (errbuf && errcap)
      gw_strlcpy(errbuf, err.msg, errcap);
    return GPUWHY_EXIT_INPUT;
  }
  render(dx, opts, out);
  gw_diagnosis_free(dx);
  return GPUWHY_EXIT_OK;
}

int gw_report_file(const char *path, const struct gw_report_opts *opts, FILE *out, char *errbuf, size_t errcap) {
  return gw_report_files(&path, 1, opts, out, errbuf, errcap);
}

static int report_files(const char *const *paths, int npaths, const struct gw_report_opts *opts, FILE *out,
                        char *errbuf, size_t errcap);

int gw_report_files(const char *const *paths, int npaths, const struct gw_report_opts *opts, FILE *out, char *errbuf,
                    size_t errcap) {
  /* no locale switch: the diagnosis is data, and the JSON renderer words it in English itself */
  return npaths == 1 ? report_file(paths[0], opts, out, errbuf, errcap)
                     : report_files(paths, npaths, opts, out, errbuf, errcap);
}

/* Recordings reported together must be one job: nodes of one run, recorded
 * at the same time. Unrelated runs merged would invent a straggler and a
 * multi-GPU ledger. The job facts come from the loaded recordings. Returns
 * GPUWHY_EXIT_OK, or 2 (the request, not the files, is wrong) with the
 * reason in errbuf. */
static int check_one_job(struct gw_recording *const *recs, const char *const *paths, int npaths, int same_job,
                         char *errbuf, size_t errcap) {
  struct gw_store_job *jobs = gw_xcalloc((size_t)npaths, sizeof *jobs);
  int rc = GPUWHY_EXIT_OK;
  for (int i = 0; i < npaths; i++)
    gw_store_job_of(recs[i]->store, &jobs[i]); /* read through the loaded recording: no second open */
  for (int i = 1; i < npaths && rc == GPUWHY_EXIT_OK; i++) {
    enum gw_job_match m = gw_store_jobs_match(&jobs[0], &jobs[i]);
    char reason[1024] = "";
    switch (m) {
    case GW_JOB_MATCH:
      break;
    case GW_JOB_SAME_RUN: /* a copy of one recording: its GPUs would count twice, whatever --same-job says */
      snprintf(errbuf, errcap, _("%s and %s are the same recording (one run id): each GPU would be counted twice"),
               paths[0], paths[i]);
      rc = GPUWHY_EXIT_USAGE;
      break;
    case GW_JOB_OTHER_ID:
      snprintf(reason, sizeof reason, _("their launchers name different jobs (%s, %s)"), jobs[0].job_id,
               jobs[i].job_id);
      break;
    case GW_JOB_APART: {
      int later_first = jobs[i].ended_ns < jobs[0].started_ns;
      snprintf(reason, sizeof reason, _("they were recorded at different times (%s ended before %s started)"),
               later_first ? paths[i] : paths[0], later_first ? paths[0] : paths[i]);
      break;
    }
    case GW_JOB_TIME_UNKNOWN:
      snprintf(reason, sizeof reason, _("the start or end of %s or %s is unknown"), paths[0], paths[i]);
      break;
    }
    if (reason[0] && !same_job) {
      snprintf(errbuf, errcap,
               _("%s and %s are not one job: %s. Report them one at a time, or give --same-job to report them "
                 "together anyway"),
               paths[0], paths[i], reason);
      rc = GPUWHY_EXIT_USAGE;
    }
  }
  free(jobs);
  return rc;
}

static int report_files(const char *const *paths, int npaths, const struct gw_report_opts *opts, FILE *out,
                        char *errbuf, size_t errcap) {
  if (npaths < 1)
    return GPUWHY_EXIT_INPUT;
  struct gw_err err = {{0}};
  struct gw_recording **recs = gw_xcalloc((size_t)npaths, sizeof *recs);
  for (int i = 0; i < npaths; i++)
    if (gw_recording_load(paths[i], &recs[i], &err) != GW_OK) {
      for (int j = 0; j < i; j++)
        gw_recording_free(recs[j]);
      free(recs);
      if (errbuf && errcap)
        gw_strlcpy(errbuf, err.msg, errcap);
      return GPUWHY_EXIT_INPUT;
    }
  int job_rc = check_one_job(recs, paths, npaths, opts->same_job, errbuf, errcap);
  if (job_rc != GPUWHY_EXIT_OK) {
    for (int i = 0; i < npaths; i++)
      gw_recording_free(recs[i]);
    free(recs);
    return job_rc;
  }
  struct gw_recording *rec = gw_recording_merge_nodes(recs, npaths);
  free(recs);
  struct gw_diagnosis *dx = NULL;
  if (gw_diagnose(rec, &dx, &err) != GW_OK) {
    gw_recording_free(rec);
    if (errbuf && errcap)
      gw_strlcpy(errbuf, err.msg, errcap);
    return GPUWHY_EXIT_INPUT;
  }
  gw_diagnosis_note(dx, "nodes_reported_together", -1, GW_NUM("recordings", GW_UNIT_COUNT, npaths));
  if (opts->format == GW_REPORT_HTML) {
    struct gw_run_facts *facts = gw_xcalloc(1, sizeof *facts);
    struct gw_err ferr = {{0}};
    int have_facts = gw_run_facts_of(rec, facts, &ferr) == GW_OK; /* the first recording, the others merged in */
    gw_render_html(rec, dx, have_facts ? facts : NULL, out);
    free(facts);
  } else {
    render(dx, opts, out);
  }
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  return GPUWHY_EXIT_OK;
}

const char *gw_class_id_at(int i) {
  return i >= 0 && i < gw_nrules ? gw_rules[i]->id : NULL;
}

int gw_explain(FILE *out, const char *class_id) {
  if (class_id) {
    const struct gw_rule *r = gw_rule_find(class_id);
    if (!r)
      return -1;
    /* TRANSLATORS: a class id and its title, the heading of gpuwhy explain CLASS */
    fprintf(out, _("%s: %s\n\n"), r->id, gw_class_title(r->id, 1));
    fprintf(out, _("Signals:\n  %s\n\nHow to confirm:\n  %s\n\nFixes, cheapest first:\n  %s\n"),
            gw_class_signals(r->id), gw_class_confirm(r->id), gw_class_fixes(r->id));
    return 0;
  }
  fputs(_("The bottleneck classes (gpuwhy explain CLASS for one in full)\n\n"), out);
  for (int i = 0; i < gw_nrules; i++) {
    const char *id = gw_rules[i]->id;
    fprintf(out, "%-16s %s\n", id, gw_class_title(id, 1));
    fprintf(out, _("  signals: %s\n  confirm: %s\n  fixes:   %s\n\n"), gw_class_signals(id), gw_class_confirm(id),
            gw_class_fixes(id));
  }
  fputs(_("A healthy run, even one at its power limit (SW power cap), gets the verdict \"none\".\n"), out);
  return 0;
}
