/* Minimal JSON string output: escaping only. Document structure is written
 * by the callers; a full JSON library would add a dependency for one job. */
#ifndef GW_JSON_WRITE_H
#define GW_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Write s as a quoted JSON string (control characters and non-UTF-8-safe
 * bytes below 0x20 escaped; bytes >= 0x80 passed through). */
void gw_json_write_string(FILE *out, const char *s);

/* Same into a buffer; returns the length written, or -1 when it does not fit. */
long gw_json_quote(char *buf, size_t cap, const char *s);

#endif
