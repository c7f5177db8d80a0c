#include "json_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t gw_utf8_seq_len(const unsigned char *s, size_t avail) {
  if (avail == 0)
    return 0;
  unsigned char c = s[0];
  if (c < 0x80)
    return 1;
  size_t n;
  unsigned min;
  unsigned cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    min = 0x80;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    min = 0x800;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    min = 0x10000;
    cp = c & 0x07;
  } else {
    return 0; /* continuation byte, 0xc0/0xc1 (always overlong) or above 0xf4 */
  }
  if (avail < n)
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Escape sequence for byte c, or NULL when it passes through. */
static const char *escape_for(unsigned char c, char tmp[8]) {
  switch (c) {
  case '"':
    return "\\\"";
  case '\\':
    return "\\\\";
  case '\n':
    return "\\n";
  case '\r':
    return "\\r";
  case '\t':
    return "\\t";
  default:
    break;
  }
  if (c < 0x20 || c == 0x7f) {
    static const char hex[] = "0123456789abcdef";
    tmp[0] = '\\';
    tmp[1] = 'u';
    tmp[2] = '0';
    tmp[3] = '0';
    tmp[4] = hex[c >> 4];
    tmp[5] = hex[c & 15];
    tmp[6] = '\0';
    return tmp;
  }
  return NULL;
}

/* The bytes to write for the character at p (left bytes remain): an escape,
 * U+FFFD for a byte that starts no valid UTF-8 sequence, or the character
 * itself. *used says how many input bytes it stands for. */
static const char *next_piece(const unsigned char *p, size_t left, char tmp[8], size_t *used, size_t *len) {
  if (*p < 0x80) {
    const char *e = escape_for(*p, tmp);
    *used = 1;
    *len = e ? strlen(e) : 1;
    return e ? e : (const char *)p;
  }
  size_t n = gw_utf8_seq_len(p, left);
  if (n == 0) {
    *used = 1;
    *len = sizeof REPLACEMENT - 1;
    return REPLACEMENT;
  }
  *used = *len = n;
  return (const char *)p;
}

void gw_json_write_string(FILE *out, const char *s) {
  char tmp[8];
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t left = strlen((const char *)p);
  fputc('"', out);
  while (left > 0) {
    size_t used, len;
    const char *piece = next_piece(p, left, tmp, &used, &len);
    fwrite(piece, 1, len, out);
    p += used;
    left -= used;
  }
  fputc('"', out);
}

long gw_json_quote(char *buf, size_t cap, const char *s) {
  char tmp[8];
  size_t len = 0;
  if (cap < 3)
    return -1;
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t left = strlen((const char *)p);
  buf[len++] = '"';
  while (left > 0) {
    size_t used, n;
    const char *piece = next_piece(p, left, tmp, &used, &n);
    if (len + n + 2 > cap)
      return -1;
    memcpy(buf + len, piece, n);
    len += n;
    p += used;
    left -= used;
  }
  buf[len++] = '"';
  buf[len] = '\0';
  return (long)len;
}

int gw_json_format_number(char *buf, size_t cap, double v) {
  int n;
  if (cap == 0)
    return -1;
  if (isnan(v) || isinf(v)) {
    n = snprintf(buf, cap, "null");
  } else if (v == floor(v) && fabs(v) <= (double)GW_JSON_MAX_EXACT_INT) {
    /* -0.0 prints as "-0", which every reader takes; whole values keep no fraction */
    n = snprintf(buf, cap, "%.0f", v);
  } else {
    /* the shortest of 15..17 significant digits that reads back unchanged:
     * 17 always does (IEEE double), 15 is what most values need */
    n = -1;
    for (int digits = 15; digits <= 17; digits++) {
      n = snprintf(buf, cap, "%.*g", digits, v);
      if (n < 0 || (size_t)n >= cap || strtod(buf, NULL) == v)
        break;
    }
  }
  if (n < 0 || (size_t)n >= cap) {
    buf[0] = '\0';
    return -1;
  }
  return n;
}

void gw_json_write_number(FILE *out, double v) {
  char buf[40];
  if (gw_json_format_number(buf, sizeof buf, v) < 0)
    fputs("null", out);
  else
    fputs(buf, out);
}

void gw_json_write_int(FILE *out, long long v) {
  if (v > GW_JSON_MAX_EXACT_INT || v < -GW_JSON_MAX_EXACT_INT)
    fprintf(out, "\"%lld\"", v);
  else
    fprintf(out, "%lld", v);
}

void gw_json_write_uint(FILE *out, unsigned long long v) {
  if (v > (unsigned long long)GW_JSON_MAX_EXACT_INT)
    fprintf(out, "\"%llu\"", v);
  else
    fprintf(out, "%llu", v);
}
