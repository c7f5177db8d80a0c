#include "json_write.h"

#include <string.h>

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

void gw_json_write_string(FILE *out, const char *s) {
  char tmp[8];
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    const char *e = escape_for(*p, tmp);
    if (e)
      fputs(e, out);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

long gw_json_quote(char *buf, size_t cap, const char *s) {
  char tmp[8];
  size_t len = 0;
  if (cap < 3)
    return -1;
  buf[len++] = '"';
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    const char *e = escape_for(*p, tmp);
    size_t n = e ? strlen(e) : 1;
    if (len + n + 2 > cap)
      return -1;
    if (e)
      memcpy(buf + len, e, n);
    else
      buf[len] = (char)*p;
    len += n;
  }
  buf[len++] = '"';
  buf[len] = '\0';
  return (long)len;
}
