/* Minimal JSON string output: escaping only. Document structure is written
 * by the callers; a full JSON library would add a dependency for one job. */
#ifndef GW_JSON_WRITE_H
#define GW_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Write s as a quoted JSON string: the project's one JSON string writer
 * (reports, compare, check, Perfetto traces, baselines). " \\ and the
 * control characters are escaped (\n \r \t, others and DEL as \u00XX);
 * each byte that starts no valid UTF-8 sequence becomes U+FFFD, so the
 * output is valid JSON whatever a recording holds. NULL is "". */
void gw_json_write_string(FILE *out, const char *s);

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the byte at s
 * does not start one (a stray continuation, an overlong form, a surrogate,
 * a code point above U+10FFFF, or a sequence cut short by the end). */
size_t gw_utf8_seq_len(const unsigned char *s, size_t avail);

/* Same into a buffer; returns the length written, or -1 when it does not fit. */
long gw_json_quote(char *buf, size_t cap, const char *s);

#endif
