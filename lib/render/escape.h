/* Escaping of text from a recording for the outputs that embed it: HTML,
 * JSON strings (Perfetto traces) and Prometheus label values. A recording
 * holds whatever a program named its kernels or a kernel log printed, so
 * every writer repairs invalid UTF-8 (each bad byte becomes U+FFFD) and
 * escapes what the target syntax reserves. */
#ifndef GW_ESCAPE_H
#define GW_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the byte at s
 * does not start one (a stray continuation, an overlong form, a surrogate,
 * a code point above U+10FFFF, or a sequence cut short by the end). */
size_t gw_utf8_seq_len(const unsigned char *s, size_t avail);

/* HTML text and attribute values: & < > " ' become entities; control
 * characters other than tab and newline are dropped. NULL writes nothing. */
void gw_html_write(FILE *out, const char *s);
/* The same into buf; returns the length, or -1 when it does not fit (buf
 * then holds a truncated, still well-formed prefix). */
long gw_html_escape(char *buf, size_t cap, const char *s);

/* A quoted JSON string with control characters as \u00XX. NULL is "". */
void gw_json_write_utf8(FILE *out, const char *s);

/* A Prometheus label value (without the quotes): backslash, double quote
 * and newline escaped. Returns the length, or -1 when it does not fit. */
long gw_prom_label_escape(char *buf, size_t cap, const char *s);

#endif
