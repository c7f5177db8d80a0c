/* The words of a bottleneck class (analysis/rules.h: a registry row, an
 * id): its title and the explain texts, made at render time from the
 * message table in class_text.c: translated for people, English for JSON. */
#ifndef GW_CLASS_TEXT_H
#define GW_CLASS_TEXT_H

/* A row of the message table: the class id, its title and its quick
 * reference for `gpuwhy explain` (English msgids, marked with N_). */
struct gw_class_message {
  const char *id;
  const char *title;   /* what holds the GPU back, as a sentence */
  const char *signals; /* what a recording shows */
  const char *confirm; /* how to check it */
  const char *fixes;   /* the fixes, cheapest first */
};

/* The row of id, or NULL. */
const struct gw_class_message *gw_class_message_find(const char *id);
/* All rows, for tests: *n gets their number. */
const struct gw_class_message *gw_class_messages(int *n);

/* The title of the class id: in the language of the messages when
 * translate, else in English. An id without a row gives the id, never NULL. */
const char *gw_class_title(const char *id, int translate);
/* Its explain texts, in the language of the messages; "" without a row. */
const char *gw_class_signals(const char *id);
const char *gw_class_confirm(const char *id);
const char *gw_class_fixes(const char *id);

#endif
