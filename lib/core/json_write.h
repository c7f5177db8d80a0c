/* Minimal JSON output: strings and numbers. Document structure is written
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

/* JSON readers hold numbers as IEEE doubles: integers beyond 2^53 lose digits. */
#define GW_JSON_MAX_EXACT_INT 9007199254740992LL

/* A double as JSON: null for NaN and infinities (unknown stays unknown,
 * never 0), a whole value up to 2^53 as an integer without exponent
 * (counts, bytes, ns), anything else in the shortest form that reads back
 * as the same double (at most 17 significant digits). Returns the length
 * written into buf (always terminated), or -1 when it does not fit. */
int gw_json_format_number(char *buf, size_t cap, double v);
void gw_json_write_number(FILE *out, double v);

/* An integer as JSON: a number when a double reader keeps it exactly
 * (|v| <= 2^53), otherwise a string of its decimal digits (seeds, ids). */
void gw_json_write_int(FILE *out, long long v);
void gw_json_write_uint(FILE *out, unsigned long long v);

#endif
