/* Public entry points behind include/gpuwhy/report.h: load, diagnose,
 * render; and the quick reference of the bottleneck classes. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/report.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/node_merge.h"
#include "analysis/rules.h"
#include "core/i18n.h"
#include "render/report_html.h"
#include "render/report_render.h"

int gw_report_format_from_name(const char *name, enum gw_report_format *out) {
  static const struct {
    const char *name;
    enum gw_report_format fmt;
  } names[] = {{"text", GW_REPORT_TEXT},
               {"json", GW_REPORT_JSON},
               {"md", GW_REPORT_MD},
               {"markdown", GW_REPORT_MD},
               {"html", GW_REPORT_HTML}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i].name) == 0) {
      *out = names[i].fmt;
      return 0;
    }
  return -1;
}

static void render(const struct gw_diagnosis *dx, const struct gw_report_opts *opts, FILE *out);

int gw_report_file(const char *path, const struct gw_report_opts *opts, FILE *out, char *errbuf, size_t errcap) {
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

static void render(const struct gw_diagnosis *dx, const struct gw_report_opts *opts, FILE *out) {
  switch (opts->format) {
  case GW_REPORT_JSON:
    gw_render_json(dx, out);
    break;
  case GW_REPORT_MD:
    gw_render_md(dx, out);
    break;
  default:
    gw_render_text(dx, out, opts->color);
  }
}

int gw_report_files(const char *const *paths, int npaths, const struct gw_report_opts *opts, FILE *out, char *errbuf,
                    size_t errcap) {
  if (npaths == 1)
    return gw_report_file(paths[0], opts, out, errbuf, errcap);
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
  struct gw_recording *rec = gw_recording_merge_nodes(recs, npaths);
  free(recs);
  struct gw_diagnosis *dx = NULL;
  if (gw_diagnose(rec, &dx, &err) != GW_OK) {
    gw_recording_free(rec);
    if (errbuf && errcap)
      gw_strlcpy(errbuf, err.msg, errcap);
    return GPUWHY_EXIT_INPUT;
  }
  gw_diagnosis_note(
      dx,
      _("%d recordings reported together, one per node: GPUs are numbered one after another; host signals "
        "(CPU, loader workers, disk) and step times are those of the first recording."),
      npaths);
  if (opts->format == GW_REPORT_HTML) {
    struct gw_run_facts *facts = gw_xcalloc(1, sizeof *facts);
    struct gw_err ferr = {{0}};
    int have_facts = gw_run_facts_load(paths[0], facts, &ferr) == GW_OK;
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
    fprintf(out, _("%s: %s (field guide section %s)\n\n"), r->id, _(r->title), r->seed_section);
    fprintf(out, _("Signals:\n  %s\n\nHow to confirm:\n  %s\n\nFixes, cheapest first:\n  %s\n"), _(r->signals),
            _(r->confirm), _(r->fixes));
    return 0;
  }
  fputs(_("The bottleneck classes (gpuwhy explain CLASS for one in full)\n\n"), out);
  for (int i = 0; i < gw_nrules; i++) {
    const struct gw_rule *r = gw_rules[i];
    fprintf(out, "%-16s %s\n", r->id, _(r->title));
    fprintf(out, _("  signals: %s\n  confirm: %s\n  fixes:   %s\n\n"), _(r->signals), _(r->confirm), _(r->fixes));
  }
  fputs(_("A healthy run, even one at its power limit (SW power cap), gets the verdict \"none\".\n"), out);
  return 0;
}
