/* The HTML report: one self-contained page (inline CSS and SVG, a few lines
 * of inline script, no external URL) with the verdict, the ledger per GPU as
 * stacked bars, the findings with evidence and fixes, and timelines of the
 * signals behind them with dips, steps and the findings' time ranges marked. */
#ifndef GW_REPORT_HTML_H
#define GW_REPORT_HTML_H

#include <stdio.h>

#include "analysis/diagnosis.h"
#include "render/run_facts.h"

/* The page's style sheet, shared by the other HTML pages (compare). */
const char *gw_report_html_style(void);

/* Write the page for a loaded recording and its diagnosis. facts may be NULL. */
void gw_render_html(const struct gw_recording *rec, const struct gw_diagnosis *dx, const struct gw_run_facts *facts,
                    FILE *out);

/* Load the recording at path, diagnose it and write the page. The HTML
 * report needs the samples themselves, which the diagnosis does not keep. */
GW_NODISCARD gw_status gw_render_html_file(const char *path, FILE *out, struct gw_err *err);

#endif
