/* The words of a finding's fix (analysis/finding.h: struct gw_fix, an id),
 * made at render time from the message table in fix_text.c: translated for
 * people, English for JSON. */
#ifndef GW_FIX_TEXT_H
#define GW_FIX_TEXT_H

#include "analysis/finding.h"

/* A row of the message table: the fix id, the change to make and why it
 * helps (English msgids, marked with N_). */
struct gw_fix_message {
  const char *id;
  const char *what; /* the change, or a command to run */
  const char *why;
};

/* The row of id, or NULL. */
const struct gw_fix_message *gw_fix_message_find(const char *id);
/* All rows, for tests: *n gets their number. */
const struct gw_fix_message *gw_fix_messages(int *n);

/* The change of fix and why it helps: in the language of the messages when
 * translate, else in English. An id without a row gives the id as the change
 * and an empty why, never NULL. */
const char *gw_fix_what(const struct gw_fix *fix, int translate);
const char *gw_fix_why(const struct gw_fix *fix, int translate);

#endif
