#include "escape.h"

#include <string.h>

/* Output goes either to a FILE or into a bounded buffer. */
struct sink {
  FILE *f;
  char *buf;
  size_t cap, len;
  int overflow;
};

static void put(struct sink *k, const char *s, size_t n) {
  if (k->f) {
    fwrite(s, 1, n, k->f);
    return;
  }
  /* all or nothing, so a truncated buffer never ends inside an entity */
  if (k->overflow || k->len + n + 1 > k->cap) {
    k->overflow = 1;
    return;
  }
  memcpy(k->buf + k->len, s, n);
  k->len += n;
  k->buf[k->len] = '\0';
}

static const char REPLACEMENT[] = "\xef\xbf\xbd"; /* U+FFFD */

/* Walk s; esc() returns the replacement text for an ASCII byte or NULL to
 * copy it. Multi-byte sequences are copied when valid, replaced when not. */
static void walk(struct sink *k, const char *s, const char *(*esc)(unsigned char c, char tmp[8])) {
  if (!s)
    return;
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  char tmp[8];
  while (left > 0) {
    if (*p < 0x80) {
      const char *e = esc(*p, tmp);
      if (e)
        put(k, e, strlen(e));
      else
        put(k, (const char *)p, 1);
      p++;
      left--;
      continue;
    }
    size_t n = gw_utf8_seq_len(p, left);
    if (n == 0) {
      put(k, REPLACEMENT, sizeof REPLACEMENT - 1);
      n = 1;
    } else {
      put(k, (const char *)p, n);
    }
    p += n;
    left -= n;
  }
}

static const char *html_esc(unsigned char c, char tmp[8]) {
  (void)tmp;
  switch (c) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '"':
    return "&quot;";
  case '\'':
    return "&#39;";
  case '\t':
  case '\n':
    return NULL;
  default:
    return c < 0x20 || c == 0x7f ? "" : NULL;
  }
}

static const char *prom_esc(unsigned char c, char tmp[8]) {
  (void)tmp;
  switch (c) {
  case '\\':
    return "\\\\";
  case '"':
    return "\\\"";
  case '\n':
    return "\\n";
  default:
    return c < 0x20 || c == 0x7f ? "" : NULL;
  }
}

void gw_html_write(FILE *out, const char *s) {
  struct sink k = {out, NULL, 0, 0, 0};
  walk(&k, s, html_esc);
}

static long to_buf(char *buf, size_t cap, const char *s, const char *(*esc)(unsigned char c, char tmp[8])) {
  if (cap == 0)
    return -1;
  buf[0] = '\0';
  struct sink k = {NULL, buf, cap, 0, 0};
  walk(&k, s, esc);
  return k.overflow ? -1 : (long)k.len;
}

long gw_html_escape(char *buf, size_t cap, const char *s) {
  return to_buf(buf, cap, s, html_esc);
}

void gw_json_write_utf8(FILE *out, const char *s) {
  gw_json_write_string(out, s); /* the project's one JSON string writer */
}

long gw_prom_label_escape(char *buf, size_t cap, const char *s) {
  return to_buf(buf, cap, s, prom_esc);
}
