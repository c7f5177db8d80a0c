/* The formats a command renders, read from its renderer table: every
 * command keeps one row per format, a struct whose first member
 * `enum gw_report_format format` names it, so that the list of formats, the
 * renderer picked and the refusal of a missing format cannot drift apart. */
#ifndef GW_RENDERER_FORMATS_H
#define GW_RENDERER_FORMATS_H

#include <gpuwhy/report.h>
#include <stddef.h>

/* GW_FORMAT_BIT of the format of each of rows[0..nrows) (each row_bytes). */
unsigned gw_renderer_formats(const void *rows, size_t nrows, size_t row_bytes);
#define GW_RENDERER_TABLE_FORMATS(table)                                                                               \
  gw_renderer_formats((table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))

/* The row of rows[0..nrows) whose format is f, or NULL when the command does
 * not render f. */
const void *gw_renderer_row(const void *rows, size_t nrows, size_t row_bytes, enum gw_report_format f);
#define GW_RENDERER_TABLE_ROW(table, f)                                                                                \
  gw_renderer_row((table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]), (f))

/* The names of the formats in have ("text, json, md"), by value so that a
 * refusal is one statement:
 *   return gw_errbuf_fail(errbuf, errcap, GPUWHY_EXIT_USAGE, _("sweep renders %s only"),
 *                         gw_format_names(gw_sweep_formats()).text); */
struct gw_format_names {
  char text[64];
};
struct gw_format_names gw_format_names(unsigned have);

#endif
