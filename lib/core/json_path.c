/* Small JSON files read by path on top of the streaming parser (see
 * json_path.h). Every lookup is one parse of a span with callbacks that
 * follow the path, skip containers off it and stop at the answer. */
#include "core/json_path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_stream.h"

/* Nesting allowed in a small file: gpuwhy's own files go 3 deep; deeper is
 * not a file it reads, and the limit bounds the parser's stack. */
#define DOC_MAX_DEPTH 64
/* Path components: "a.b[2].c" is 4. */
#define PATH_MAX_COMPONENTS 16

static char *read_whole(const char *path, long max_bytes, size_t *len_out, struct gw_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    gw_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = gw_xcalloc(cap, 1);
  for (;;) {
    if (len + 1 >= cap) {
      cap *= 2;
      buf = gw_xrealloc(buf, cap);
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if ((long)len > max_bytes) {
      gw_err_set(err, "%s: larger than %ld bytes, not a file gpuwhy wrote", path, max_bytes);
      fclose(f);
      free(buf);
      return NULL;
    }
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    gw_err_set(err, "%s: read error", path);
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *len_out = len;
  return buf;
}

/* ---- walking a span ---- */

static int is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r'); /* the parser's whitespace */
}

/* One parse of a span of the document. The parser reports where a token
 * ends; the walk also knows where each starts, so that a value found is a
 * span again. Offsets are relative to the span. What a walk is for (check,
 * find, list) is in its three hooks; each returns what a parser callback
 * returns (1 go on, 0 stop, GW_JSON_SKIP for a container). */
struct walk {
  struct gw_json *j;
  const char *text;         /* the span's first byte */
  size_t base;              /* its offset in the document */
  size_t last_end;          /* just after the previous token */
  int depth;                /* containers open, not counting the one starting */
  const unsigned char *str; /* a string value's decoded bytes, for value() */
  size_t str_len;
  int (*value)(struct walk *w, enum gw_json_type type, size_t start);
  void (*key)(struct walk *w, const unsigned char *s, size_t n, size_t start);
  int (*end)(struct walk *w); /* a container ends; 1: depth goes down */
};

/* Where the token being reported starts: after the previous one, its
 * whitespace and its ',' or ':'. */
static size_t token_start(const struct walk *w) {
  size_t at = w->last_end;
  while (is_space(w->text[at]) || w->text[at] == ',' || w->text[at] == ':')
    at++;
  return at;
}

static int on_value(struct walk *w, enum gw_json_type type) {
  size_t start = token_start(w);
  w->last_end = (size_t)gw_json_offset(w->j);
  int r = w->value(w, type, start);
  if (type == GW_JSON_ARRAY || type == GW_JSON_OBJECT)
    w->depth++;
  return r;
}
static int on_null(void *ctx) {
  return on_value(ctx, GW_JSON_NULL);
}
static int on_bool(void *ctx, int v) {
  return on_value(ctx, v ? GW_JSON_TRUE : GW_JSON_FALSE);
}
static int on_number(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return on_value(ctx, GW_JSON_NUMBER);
}
static int on_string(void *ctx, const unsigned char *s, size_t n) {
  struct walk *w = ctx;
  w->str = s;
  w->str_len = n;
  return on_value(w, GW_JSON_STRING);
}
static int on_start_map(void *ctx) {
  return on_value(ctx, GW_JSON_OBJECT);
}
static int on_start_array(void *ctx) {
  return on_value(ctx, GW_JSON_ARRAY);
}
static int on_key(void *ctx, const unsigned char *s, size_t n) {
  struct walk *w = ctx;
  size_t start = token_start(w);
  w->last_end = (size_t)gw_json_offset(w->j);
  if (w->key)
    w->key(w, s, n, start);
  return 1;
}
static int on_end(void *ctx) {
  struct walk *w = ctx;
  w->last_end = (size_t)gw_json_offset(w->j);
  int r = w->end(w);
  if (r)
    w->depth--;
  return r;
}

static const struct gw_json_callbacks WALK = {on_null, on_bool, on_number,      on_string, on_start_map,
                                              on_key,  on_end,  on_start_array, on_end};

/* Walks text[start, end) of doc with w's hooks (w's other fields zero);
 * the parser's verdict, with its reason and offset when it is an error. */
static enum gw_json_status walk_span(const struct gw_json_doc *doc, size_t start, size_t end, struct walk *w,
                                     const char **why, uint64_t *at) {
  w->text = doc->text + start;
  w->base = start;
  w->j = gw_json_new(&WALK, w, DOC_MAX_DEPTH);
  size_t used = 0;
  enum gw_json_status st = gw_json_parse(w->j, (const unsigned char *)w->text, end - start, 1, &used);
  if (why)
    *why = gw_json_error(w->j);
  if (at)
    *at = gw_json_offset(w->j);
  gw_json_free(w->j);
  w->j = NULL;
  return st;
}

/* ---- loading ---- */

/* The check: stops at a top level that is not an object. */
struct checker {
  struct walk w;
  enum gw_json_type top;
};

static int check_value(struct walk *w, enum gw_json_type type, size_t start) {
  (void)start;
  if (w->depth == 0)
    ((struct checker *)w)->top = type;
  return w->depth > 0 || type == GW_JSON_OBJECT;
}
static int check_end(struct walk *w) {
  (void)w;
  return 1;
}

static const char *type_words(enum gw_json_type t) {
  static const char *const words[] = {"nothing",  "null",     "false",    "true",
                                      "a number", "a string", "an array", "an object"};
  return words[t];
}

/* One valid JSON object, or a message saying where and why not. */
static gw_status check_object(const struct gw_json_doc *doc, struct gw_err *err) {
  if (strlen(doc->text) != doc->len) {
    gw_err_set(err, "%s: not a JSON object: holds NUL bytes", doc->path);
    return GW_EINPUT;
  }
  struct checker c;
  memset(&c, 0, sizeof c);
  c.w.value = check_value;
  c.w.end = check_end;
  const char *why = "";
  uint64_t at = 0;
  enum gw_json_status st = walk_span(doc, 0, doc->len, &c.w, &why, &at);
  if (st == GW_JSON_OK)
    return GW_OK;
  if (st == GW_JSON_CANCELED)
    gw_err_set(err, "%s: not a JSON object (the document is %s)", doc->path, type_words(c.top));
  else if (st == GW_JSON_TOO_DEEP)
    gw_err_set(err, "%s: not a JSON object gpuwhy reads: nested deeper than %d levels at byte %llu", doc->path,
               DOC_MAX_DEPTH, (unsigned long long)at);
  else
    gw_err_set(err, "%s: not a JSON object: %s at byte %llu", doc->path, why, (unsigned long long)at);
  return GW_EINPUT;
}

gw_status gw_json_doc_load(const char *path, long max_bytes, struct gw_json_doc *doc, struct gw_err *err) {
  memset(doc, 0, sizeof *doc);
  gw_strlcpy(doc->path, path, sizeof doc->path);
  doc->text = read_whole(path, max_bytes, &doc->len, err);
  if (!doc->text)
    return GW_EINPUT;
  gw_status rc = check_object(doc, err);
  if (rc)
    gw_json_doc_free(doc);
  return rc;
}

gw_status gw_json_doc_from_text(const char *name, const char *text, size_t len, struct gw_json_doc *doc,
                                struct gw_err *err) {
  memset(doc, 0, sizeof *doc);
  gw_strlcpy(doc->path, name, sizeof doc->path);
  doc->text = gw_xcalloc(len + 1, 1);
  memcpy(doc->text, text, len);
  doc->len = len;
  gw_status rc = check_object(doc, err);
  if (rc)
    gw_json_doc_free(doc);
  return rc;
}

void gw_json_doc_free(struct gw_json_doc *doc) {
  free(doc->text);
  doc->text = NULL;
  doc->len = 0;
}

struct gw_json_value gw_json_root(const struct gw_json_doc *doc) {
  struct gw_json_value v = {doc, 0, doc->len, 0, 0, doc->text ? GW_JSON_OBJECT : GW_JSON_ABSENT};
  return v;
}

/* ---- paths ---- */

struct component {
  const char *key; /* NULL for an array index */
  size_t key_len;
  long index;
};

/* Splits "a.b[2].c"; -1 when malformed or too long. */
static int parse_path(const char *path, struct component *c) {
  int n = 0;
  const char *p = path;
  while (*p) {
    if (n == PATH_MAX_COMPONENTS)
      return -1;
    if (*p == '[') {
      char *end = NULL;
      errno = 0;
      long i = strtol(p + 1, &end, 10);
      if (end == p + 1 || *end != ']' || i < 0 || errno)
        return -1;
      c[n++] = (struct component){NULL, 0, i};
      p = end + 1;
      if (*p == '.')
        p++;
      continue;
    }
    size_t len = strcspn(p, ".[");
    if (len == 0)
      return -1;
    c[n++] = (struct component){p, len, -1};
    p += len;
    if (*p == '.')
      p++;
  }
  return n;
}

/* Follows a path: the containers on it are entered, all others skipped. */
struct finder {
  struct walk w;
  const struct component *comp;
  int ncomp;
  int on_path;     /* depth of the deepest open container on the path */
  long index;      /* values seen so far in it */
  int key_matches; /* its last key is the component looked for */
  int found;       /* 1: the answer is in out; 2: the target container is open */
  struct gw_json_value out;
  char *buf; /* a string target is copied here */
  size_t cap;
};

static int find_value(struct walk *w, enum gw_json_type type, size_t start) {
  struct finder *f = (struct finder *)w;
  int container = type == GW_JSON_ARRAY || type == GW_JSON_OBJECT;
  int level = w->depth; /* the length of this value's path */
  if (level > 0) {
    const struct component *c = &f->comp[f->on_path - 1];
    int matches = c->key ? f->key_matches : f->index == c->index;
    f->index++;
    if (!matches)
      return container ? GW_JSON_SKIP : 1;
  }
  if (level == f->ncomp) {
    f->out.start = w->base + start;
    f->out.end = w->base + w->last_end;
    f->out.type = type;
    f->found = container ? 2 : 1;
    if (type == GW_JSON_STRING && f->buf) {
      size_t k = w->str_len < f->cap - 1 ? w->str_len : f->cap - 1;
      memcpy(f->buf, w->str, k);
      f->buf[k] = '\0';
    }
    return container ? GW_JSON_SKIP : 0;
  }
  if (type != (f->comp[level].key ? GW_JSON_OBJECT : GW_JSON_ARRAY))
    return 0; /* a scalar or the wrong container where the path goes on */
  f->on_path = level + 1;
  f->index = 0;
  f->key_matches = 0;
  return 1;
}

static void find_key(struct walk *w, const unsigned char *s, size_t n, size_t start) {
  (void)start;
  struct finder *f = (struct finder *)w;
  const struct component *c = w->depth == f->on_path ? &f->comp[f->on_path - 1] : NULL;
  f->key_matches = c && c->key && c->key_len == n && memcmp(c->key, s, n) == 0;
}

static int find_end(struct walk *w) {
  struct finder *f = (struct finder *)w;
  if (f->found == 2) {
    f->out.end = w->base + w->last_end; /* only the target's own end is reported inside it */
    f->found = 1;
    return 0;
  }
  return w->depth != f->on_path; /* the container on the path ends without the value */
}

static struct gw_json_value find(struct gw_json_value v, const char *path, char *buf, size_t cap) {
  struct gw_json_value none = {v.doc, 0, 0, 0, 0, GW_JSON_ABSENT};
  struct component comp[PATH_MAX_COMPONENTS];
  int n = path ? parse_path(path, comp) : -1;
  if (!v.doc || !v.doc->text || v.type == GW_JSON_ABSENT || n < 0)
    return none;
  struct finder f;
  memset(&f, 0, sizeof f);
  f.w.value = find_value;
  f.w.key = find_key;
  f.w.end = find_end;
  f.comp = comp;
  f.ncomp = n;
  f.out = none;
  f.buf = buf;
  f.cap = cap;
  walk_span(v.doc, v.start, v.end, &f.w, NULL, NULL);
  return f.found == 1 ? f.out : none;
}

struct gw_json_value gw_json_get(struct gw_json_value v, const char *path) {
  return find(v, path, NULL, 0);
}

enum gw_json_type gw_json_type_at(struct gw_json_value v, const char *path) {
  return find(v, path, NULL, 0).type;
}

/* The text of a number value, NUL-terminated in buf; NULL when too long for
 * any double or integer gpuwhy reads. */
static const char *number_text(struct gw_json_value n, char *buf, size_t cap) {
  size_t len = n.end - n.start;
  if (n.type != GW_JSON_NUMBER || len >= cap)
    return NULL;
  memcpy(buf, n.doc->text + n.start, len);
  buf[len] = '\0';
  return buf;
}

double gw_json_number(struct gw_json_value v, const char *path) {
  char buf[512];
  const char *t = number_text(find(v, path, NULL, 0), buf, sizeof buf);
  return t ? strtod(t, NULL) : NAN;
}

int gw_json_i64(struct gw_json_value v, const char *path, int64_t *out) {
  char buf[32];
  const char *t = number_text(find(v, path, NULL, 0), buf, sizeof buf);
  if (!t || strpbrk(t, ".eE"))
    return -1;
  errno = 0;
  long long x = strtoll(t, NULL, 10);
  if (errno)
    return -1;
  *out = x;
  return 0;
}

int gw_json_string(struct gw_json_value v, const char *path, char *buf, size_t cap) {
  if (cap == 0)
    return -1;
  struct gw_json_value s = find(v, path, buf, cap);
  return s.type == GW_JSON_STRING ? 0 : -1;
}

int gw_json_key(struct gw_json_value v, char *buf, size_t cap) {
  if (v.key_end <= v.key_start || cap == 0)
    return -1;
  /* the key's text is itself a JSON document: one string */
  struct gw_json_value key = {v.doc, v.key_start, v.key_end, 0, 0, GW_JSON_STRING};
  return gw_json_string(key, "", buf, cap);
}

/* ---- members ---- */

struct lister {
  struct walk w;
  struct gw_json_value *m;
  size_t n, cap;
  size_t key_start, key_end; /* of the member coming */
};

static int list_value(struct walk *w, enum gw_json_type type, size_t start) {
  struct lister *l = (struct lister *)w;
  int container = type == GW_JSON_ARRAY || type == GW_JSON_OBJECT;
  if (w->depth == 0)
    return container; /* v itself: only a container has members */
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->m = gw_xrealloc(l->m, l->cap * sizeof *l->m);
  }
  l->m[l->n++] = (struct gw_json_value){NULL, w->base + start, w->base + w->last_end, l->key_start, l->key_end, type};
  l->key_start = l->key_end = 0;
  return container ? GW_JSON_SKIP : 1;
}

static void list_key(struct walk *w, const unsigned char *s, size_t n, size_t start) {
  (void)s;
  (void)n;
  struct lister *l = (struct lister *)w;
  l->key_start = w->base + start;
  l->key_end = w->base + w->last_end;
}

static int list_end(struct walk *w) {
  struct lister *l = (struct lister *)w;
  if (w->depth == 1)
    return 0;                                 /* v itself ends */
  l->m[l->n - 1].end = w->base + w->last_end; /* a skipped member's end */
  return 1;
}

size_t gw_json_members(struct gw_json_value v, struct gw_json_value **out) {
  *out = NULL;
  if (!v.doc || !v.doc->text || (v.type != GW_JSON_ARRAY && v.type != GW_JSON_OBJECT))
    return 0;
  struct lister l;
  memset(&l, 0, sizeof l);
  l.w.value = list_value;
  l.w.key = list_key;
  l.w.end = list_end;
  walk_span(v.doc, v.start, v.end, &l.w, NULL, NULL);
  for (size_t i = 0; i < l.n; i++)
    l.m[i].doc = v.doc;
  *out = l.m;
  return l.n;
}
