/* The sentence of a piece of evidence (analysis/evidence.h), made at render
 * time from the message table in evidence_text.c: translated for people,
 * English for JSON. */
#ifndef GW_EVIDENCE_TEXT_H
#define GW_EVIDENCE_TEXT_H

#include <stddef.h>

#include "analysis/evidence.h"

/* A row of the message table: the evidence id, its printf-style English
 * message (marked with N_) and the names of the values its conversions take,
 * in order ("gpu" is the evidence's GPU). A fraction shows as a percentage
 * (its number times 100). */
struct gw_evidence_message {
  const char *id;
  const char *msgid;
  const char *args[GW_EVIDENCE_MAX_VALUES];
};

/* The row of id, or NULL. */
const struct gw_evidence_message *gw_evidence_message_find(const char *id);
/* All rows, for tests: *n gets their number. */
const struct gw_evidence_message *gw_evidence_messages(int *n);

/* Looks a row up by id in one message table (a clause's row, GW_CLAUSE). */
typedef const struct gw_evidence_message *(*gw_message_find_fn)(const char *id);

/* The sentence of e worded by row, a row of a message table (this one or
 * render/note_text.c's), into out (cap bytes, cut like snprintf but at a
 * character's edge): in the language of the messages when translate, else
 * in English. find looks up the rows clauses name. With no row it writes the
 * id and its values, never nothing. */
void gw_message_text(const struct gw_evidence_message *row, gw_message_find_fn find, const struct gw_evidence *e,
                     int translate, char *out, size_t cap);

/* The sentence of e into out (cap bytes, cut like snprintf): in the language
 * of the messages when translate, else in English. An id without a row
 * writes the id and its values, never nothing. */
void gw_evidence_text(const struct gw_evidence *e, int translate, char *out, size_t cap);

#endif
