/* Renderers of a diagnosis: terminal text, JSON (docs/report-json.md) and
 * Markdown. Each writes the whole report to out. */
#ifndef GW_REPORT_RENDER_H
#define GW_REPORT_RENDER_H

#include <stdio.h>

#include "analysis/diagnosis.h"

/* 2: "schema" carries the version ("gpuwhy.report/2"), numbers round-trip */
#define GW_REPORT_JSON_SCHEMA_VERSION 2

void gw_render_text(const struct gw_diagnosis *dx, FILE *out, int color);
void gw_render_json(const struct gw_diagnosis *dx, FILE *out);
void gw_render_md(const struct gw_diagnosis *dx, FILE *out);

/* Shared helpers. */
const char *gw_render_basename(const char *path);
/* Seconds of t_ns after the recording's start (the first GPU tick when the
 * run's start is unknown). */
double gw_render_rel_s(const struct gw_diagnosis *dx, int64_t t_ns);
/* Share of a ledger row in its GPU's wall time, 0..1. */
double gw_render_row_share(const struct gw_ledger *l, int row);

#endif
