/* The set of formats a command renders, read from its renderer table: every
 * command keeps one row per format (a struct whose member `format` names it),
 * and gw_X_formats() answers from that table so that the list of formats
 * and the renderers cannot drift apart. */
#ifndef GW_RENDERER_FORMATS_H
#define GW_RENDERER_FORMATS_H

#include <gpuwhy/report.h>
#include <stddef.h>

/* GW_FORMAT_BIT of each of nrows formats, the first at *first and each next
 * one row_bytes further (the rows of a renderer table). */
unsigned gw_renderer_formats(const enum gw_report_format *first, size_t nrows, size_t row_bytes);

/* The formats of a renderer table (an array whose rows have a member `format`). */
#define GW_RENDERER_TABLE_FORMATS(table)                                                                               \
  gw_renderer_formats(&(table)[0].format, sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))

#endif
