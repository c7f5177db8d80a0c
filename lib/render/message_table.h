/* The lookup every message table of lib/render shares (evidence, notes,
 * fixes, classes): rows are structs whose first member is the row's id. */
#ifndef GW_MESSAGE_TABLE_H
#define GW_MESSAGE_TABLE_H

#include <stddef.h>

/* The row of rows[0..nrows) (each row_size bytes, its first member a
 * const char * id) whose id is id, or NULL (also for a NULL id). */
const void *gw_message_row_find(const void *rows, size_t nrows, size_t row_size, const char *id);

/* gw_message_row_find over a whole static array. */
#define GW_MESSAGE_FIND(array, id)                                                                                     \
  gw_message_row_find((array), sizeof(array) / sizeof((array)[0]), sizeof((array)[0]), (id))

/* Defines the two accessors of a message table: all_fn(int *n), its rows and
 * their count (for the tests and `gpuwhy explain`), and find_fn(id), the row
 * of an id or NULL. */
#define GW_MESSAGE_TABLE_ACCESSORS(row_type, array, all_fn, find_fn)                                                   \
  const row_type *all_fn(int *n) {                                                                                     \
    *n = (int)(sizeof(array) / sizeof((array)[0]));                                                                    \
    return (array);                                                                                                    \
  }                                                                                                                    \
  const row_type *find_fn(const char *id) {                                                                            \
    return GW_MESSAGE_FIND(array, id);                                                                                 \
  }

#endif
