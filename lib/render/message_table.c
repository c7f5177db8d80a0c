#include "render/message_table.h"

#include <string.h>

const void *gw_message_row_find(const void *rows, size_t nrows, size_t row_size, const char *id) {
  const char *row = rows;
  for (size_t i = 0; id && i < nrows; i++, row += row_size) {
    const char *row_id;
    memcpy(&row_id, row, sizeof row_id); /* the first member: the id */
    if (row_id && strcmp(row_id, id) == 0)
      return row;
  }
  return NULL;
}
