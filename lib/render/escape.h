/* Escaping of text from a recording for the outputs that embed it: HTML,
 * JSON strings (Perfetto traces) and Prometheus label values. A recording
 * holds whatever a program named its kernels or a kernel log printed, so
 * every writer repairs invalid UTF-8 (each bad byte becomes U+FFFD) and
 * escapes what the target syntax reserves. */
#ifndef GW_ESCAPE_H
#define GW_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include "core/json_write.h" /* gw_utf8_seq_len */

/* HTML text and attribute values: & < > " ' become entities; control
 * characters other than tab and newline are dropped. NULL writes nothing. */
void gw_html_write(FILE *out, const char *s);
/* The same into buf; returns the length, or -1 when it does not fit (buf
 * then holds a truncated, still well-formed prefix). */
long gw_html_escape(char *buf, size_t cap, const char *s);

/* gw_json_write_string (lib/core/json_write.c), the one JSON string writer. */
void gw_json_write_utf8(FILE *out, const char *s);

/* A Prometheus label value (without the quotes): backslash, double quote
 * and newline escaped. Returns the length, or -1 when it does not fit. */
long gw_prom_label_escape(char *buf, size_t cap, const char *s);

#endif
