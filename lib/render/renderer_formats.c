/* See renderer_formats.h. */
#include "render/renderer_formats.h"

unsigned gw_renderer_formats(const enum gw_report_format *first, size_t nrows, size_t row_bytes) {
  unsigned have = 0;
  const char *row = (const char *)first;
  for (size_t i = 0; i < nrows; i++, row += row_bytes)
    have |= GW_FORMAT_BIT(*(const enum gw_report_format *)(const void *)row);
  return have;
}
