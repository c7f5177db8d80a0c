/* The sentences of the diagnosis's notes, interpretation lines and
 * experiments (analysis/diagnosis_model.h), made at render time from the
 * message table in note_text.c, as evidence's are from evidence_text.c:
 * translated for people, English for JSON. */
#ifndef GW_NOTE_TEXT_H
#define GW_NOTE_TEXT_H

#include <stddef.h>

#include "analysis/evidence.h"
#include "render/evidence_text.h"

/* The row of id in the notes' table, or NULL. */
const struct gw_evidence_message *gw_note_message_find(const char *id);
/* All rows, for tests: *n gets their number. */
const struct gw_evidence_message *gw_note_messages(int *n);

/* The sentence of a note or interpretation line into out (cap bytes, cut at
 * a character's edge): in the language of the messages when translate, else
 * in English. */
void gw_note_text(const struct gw_evidence *note, int translate, char *out, size_t cap);
/* The sentence of an id that takes no values (an experiment's why). */
void gw_note_id_text(const char *id, int translate, char *out, size_t cap);

#endif
