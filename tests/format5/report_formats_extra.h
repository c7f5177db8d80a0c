/* The rows of a fifth report format, compiled into test_fifth_format only
 * (GW_EXTRA_REPORT_FORMATS): what a new format adds besides its renderer
 * file (docs/ARCHITECTURE.md): its declaration, its value and its row. */
#ifndef GW_TEST_REPORT_FORMATS_EXTRA_H
#define GW_TEST_REPORT_FORMATS_EXTRA_H

#include <stdio.h>

struct gw_diagnosis;

#define GW_REPORT_CSV GW_REPORT_EXTRA_FIRST
void gw_render_csv(const struct gw_diagnosis *dx, FILE *out, int color);

#define GW_EXTRA_REPORT_FORMAT_ROWS X("csv", GW_REPORT_CSV, gw_render_csv)

#endif
