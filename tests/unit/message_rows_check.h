/* What every message table of evidence-shaped rows (lib/render/evidence_text.c,
 * note_text.c) must hold, for their unit tests: each row's printf
 * conversions take exactly its named values, ids are unique, and the
 * table's find returns each row. Include after cmocka.h. */
#ifndef GW_TEST_MESSAGE_ROWS_CHECK_H
#define GW_TEST_MESSAGE_ROWS_CHECK_H

#include <string.h>

#include "render/evidence_text.h"

/* Conversions of a printf format, %% left out. */
static int message_conversions(const char *msg) {
  int n = 0;
  for (const char *p = strchr(msg, '%'); p; p = strchr(p, '%')) {
    if (p[1] == '%') {
      p += 2;
      continue;
    }
    n++;
    p++;
  }
  return n;
}

/* table gives the rows and their count, which is at least min_rows. */
static void check_message_rows(const struct gw_evidence_message *(*table)(int *n), int min_rows,
                               const struct gw_evidence_message *(*find)(const char *id)) {
  int n = 0;
  const struct gw_evidence_message *rows = table(&n);
  assert_true(n >= min_rows);
  for (int i = 0; i < n; i++) {
    int nargs = 0;
    while (nargs < GW_EVIDENCE_MAX_VALUES && rows[i].args[nargs])
      nargs++;
    if (message_conversions(rows[i].msgid) != nargs)
      fail_msg("%s: %d conversions, %d values", rows[i].id, message_conversions(rows[i].msgid), nargs);
    for (int j = 0; j < i; j++)
      if (strcmp(rows[i].id, rows[j].id) == 0)
        fail_msg("%s: two rows", rows[i].id);
    assert_ptr_equal(find(rows[i].id), &rows[i]);
  }
}

#endif
