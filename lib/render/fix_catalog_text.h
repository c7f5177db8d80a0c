/* The words of the fix catalogue (analysis/fix_catalog.h), made where they
 * are shown: what each fix changes, why a --fix argument is refused, and why
 * a prediction is what it is. */
#ifndef GW_FIX_CATALOG_TEXT_H
#define GW_FIX_CATALOG_TEXT_H

#include <stddef.h>

#include "analysis/fix_catalog.h"

/* What the fix named name (gw_fix_kind's name) changes, numerics included:
 * English (translate 0, for JSON) or in the language of the messages; "" for
 * a name without a row. */
const char *gw_fix_kind_changes(const char *name, int translate);

/* Why gw_fix_parse refused arg, in the language of the messages, into buf
 * (cap bytes); "" for GW_FIX_PARSE_OK. */
void gw_fix_parse_status_text(enum gw_fix_parse_status status, const char *arg, char *buf, size_t cap);

/* The prediction's reason in words: English (translate 0, for JSON) or in
 * the language of the messages. */
void gw_fix_reason_text(const struct gw_fix_plan *p, int translate, char *buf, size_t cap);

#endif
