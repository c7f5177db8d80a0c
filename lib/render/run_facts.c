#include "run_facts.h"

#include <math.h>
#include <string.h>

#include "store/store.h"

/* Append n bytes to out[*len], keeping room for the NUL; returns 0 when it did not fit. */
static int append(char *out, size_t cap, size_t *len, const char *s, size_t n) {
  if (*len + n + 1 > cap)
    return 0;
  memcpy(out + *len, s, n);
  *len += n;
  out[*len] = '\0';
  return 1;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Decode one JSON string starting after its opening quote into arg (UTF-8).
 * Returns a pointer after the closing quote, or NULL when malformed. */
static const char *json_string(const char *p, char *arg, size_t cap) {
  size_t len = 0;
  arg[0] = '\0';
  while (*p && *p != '"') {
    char c = *p++;
    if (c != '\\') {
      append(arg, cap, &len, &c, 1);
      continue;
    }
    char e = *p++;
    const char *simple = NULL;
    switch (e) {
    case '"':
      simple = "\"";
      break;
    case '\\':
      simple = "\\";
      break;
    case '/':
      simple = "/";
      break;
    case 'n':
      simple = "\n";
      break;
    case 't':
      simple = "\t";
      break;
    case 'r':
      simple = "\r";
      break;
    case 'b':
      simple = "\b";
      break;
    case 'f':
      simple = "\f";
      break;
    case 'u': {
      unsigned cp = 0;
      for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
          return NULL;
        cp = cp << 4 | (unsigned)h;
      }
      p += 4;
      char u[4];
      size_t n;
      if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
      } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | cp >> 6);
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
      } else { /* surrogate halves stay as they are; the HTML writer repairs them */
        u[0] = (char)(0xe0 | cp >> 12);
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
      }
      append(arg, cap, &len, u, n);
      continue;
    }
    default:
      return NULL;
    }
    append(arg, cap, &len, simple, 1);
  }
  return *p == '"' ? p + 1 : NULL;
}

static int needs_quotes(const char *s) {
  if (!*s)
    return 1;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("-_./=:,+@%", *s) || (unsigned char)*s >= 0x80))
      return 1;
  return 0;
}

void gw_command_for_people(const char *json, char *out, size_t cap) {
  if (cap == 0)
    return;
  out[0] = '\0';
  if (!json)
    return;
  const char *p = json;
  while (*p == ' ')
    p++;
  size_t len = 0;
  char arg[1024];
  if (*p++ != '[')
    goto raw;
  for (int first = 1;; first = 0) {
    while (*p == ' ' || *p == '\n')
      p++;
    if (*p == ']')
      return;
    if (!first) {
      if (*p++ != ',')
        goto raw;
      while (*p == ' ')
        p++;
    }
    if (*p++ != '"' || !(p = json_string(p, arg, sizeof arg)))
      goto raw;
    if (!first)
      append(out, cap, &len, " ", 1);
    if (!needs_quotes(arg)) {
      append(out, cap, &len, arg, strlen(arg));
      continue;
    }
    /* single quotes; an embedded one becomes '\'' */
    append(out, cap, &len, "'", 1);
    for (const char *a = arg; *a; a++) {
      if (*a == '\'')
        append(out, cap, &len, "'\\''", 4);
      else
        append(out, cap, &len, a, 1);
    }
    append(out, cap, &len, "'", 1);
  }
raw:
  gw_strlcpy(out, json, cap);
}

const struct gw_gpu_facts *gw_run_facts_gpu(const struct gw_run_facts *f, int gpu) {
  for (int i = 0; i < f->ngpus; i++)
    if (f->gpus[i].gpu == gpu)
      return &f->gpus[i];
  return NULL;
}

gw_status gw_run_facts_load(const char *path, struct gw_run_facts *out, struct gw_err *err) {
  memset(out, 0, sizeof *out); /* a file that does not open leaves the facts unknown */
  out->exit_status = -1;
  out->mem_total_bytes = NAN;
  struct gw_store *st = NULL;
  gw_status rc = gw_store_open(&st, path, 1, err);
  if (rc)
    return rc;
  gw_store_read_run_facts(st, out, gw_command_for_people);
  gw_store_close(st);
  return GW_OK;
}
