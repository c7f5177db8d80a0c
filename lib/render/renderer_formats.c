/* See renderer_formats.h. */
#include "render/renderer_formats.h"

#include <string.h>

static enum gw_report_format row_format(const char *row) {
  enum gw_report_format f;
  memcpy(&f, row, sizeof f); /* the first member: the format */
  return f;
}

unsigned gw_renderer_formats(const void *rows, size_t nrows, size_t row_bytes) {
  unsigned have = 0;
  const char *row = rows;
  for (size_t i = 0; i < nrows; i++, row += row_bytes)
    have |= GW_FORMAT_BIT(row_format(row));
  return have;
}

const void *gw_renderer_row(const void *rows, size_t nrows, size_t row_bytes, enum gw_report_format f) {
  const char *row = rows;
  for (size_t i = 0; i < nrows; i++, row += row_bytes)
    if (row_format(row) == f)
      return row;
  return NULL;
}

struct gw_format_names gw_format_names(unsigned have) {
  struct gw_format_names names;
  gw_format_list(have, names.text, sizeof names.text);
  return names;
}
