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

/* ---- loading ---- */

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

/* Checks the document: the callbacks stop the parse at a top level that is
 * not an object and only follow the depth otherwise. */
struct checker {
  int depth;
  const char *top; /* what the top level is when it is no object */
};

static int chk_top(struct checker *c, const char *what) {
  if (c->depth == 0)
    c->top = what;
  return c->depth > 0;
}
static int chk_null(void *ctx) {
  return chk_top(ctx, "null");
}
static int chk_bool(void *ctx, int v) {
  (void)v;
  return chk_top(ctx, "a boolean");
}
static int chk_number(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return chk_top(ctx, "a number");
}
static int chk_string(void *ctx, const unsigned char *s, size_t n) {
  (void)s;
  (void)n;
  return chk_top(ctx, "a string");
}
static int chk_start_array(void *ctx) {
  struct checker *c = ctx;
  int go_on = chk_top(c, "an array");
  c->depth++;
  return go_on;
}
static int chk_start_map(void *ctx) {
  ((struct checker *)ctx)->depth++;
  return 1;
}
static int chk_key(void *ctx, const unsigned char *s, size_t n) {
  (void)ctx;
  (void)s;
  (void)n;
  return 1;
}
static int chk_end(void *ctx) {
  ((struct checker *)ctx)->depth--;
  return 1;
}

static const struct gw_json_callbacks CHECK = {chk_null, chk_bool, chk_number,      chk_string, chk_start_map,
                                               chk_key,  chk_end,  chk_start_array, chk_end};

/* One valid JSON object, or a message saying where and why not. */
static gw_status check_object(const struct gw_json_doc *doc, struct gw_err *err) {
  if (strlen(doc->text) != doc->len) {
    gw_err_set(err, "%s: not a JSON object: holds NUL bytes", doc->path);
    return GW_EINPUT;
  }
  struct checker c = {0, NULL};
  struct gw_json *j = gw_json_new(&CHECK, &c, DOC_MAX_DEPTH);
  size_t used = 0;
  enum gw_json_status st = gw_json_parse(j, (const unsigned char *)doc->text, doc->len, 1, &used);
  gw_status rc = st == GW_JSON_OK ? GW_OK : GW_EINPUT;
  if (st == GW_JSON_CANCELED)
    gw_err_set(err, "%s: not a JSON object (the document is %s)", doc->path, c.top ? c.top : "?");
  else if (st == GW_JSON_TOO_DEEP)
    gw_err_set(err, "%s: not a JSON object gpuwhy reads: nested deeper than %d levels at byte %llu", doc->path,
               DOC_MAX_DEPTH, (unsigned long long)gw_json_offset(j));
  else if (st != GW_JSON_OK)
    gw_err_set(err, "%s: not a JSON object: %s at byte %llu", doc->path, gw_json_error(j),
               (unsigned long long)gw_json_offset(j));
  gw_json_free(j);
  return rc;
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

static int is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r'); /* the parser's whitespace */
}

/* What one parse of a span knows; offsets are relative to the span. */
struct walk {
  struct gw_json *j;
  const char *text; /* the span's first byte */
  size_t base;      /* its offset in the document */
  size_t last_end;  /* just after the previous token */
  int depth;        /* containers open */
};

/* Where the token being reported starts: after the previous one, its
 * whitespace and its ',' or ':'. */
static size_t token_start(const struct walk *w) {
  size_t at = w->last_end;
  while (is_space(w->text[at]) || w->text[at] == ',' || w->text[at] == ':')
    at++;
  return at;
}

static size_t token_end(const struct walk *w) {
  return (size_t)gw_json_offset(w->j);
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

/* A value starts; returns what its callback returns. */
static int find_value(struct finder *f, enum gw_json_type type) {
  int container = type == GW_JSON_ARRAY || type == GW_JSON_OBJECT;
  size_t start = token_start(&f->w);
  f->w.last_end = token_end(&f->w);
  int level = f->w.depth; /* the length of this value's path */
  if (level > 0) {
    const struct component *c = &f->comp[f->on_path - 1];
    int matches = c->key ? f->key_matches : f->index == c->index;
    f->index++;
    if (!matches)
      return container ? GW_JSON_SKIP : 1;
  }
  if (level == f->ncomp) {
    f->out.start = f->w.base + start;
    f->out.end = f->w.base + f->w.last_end;
    f->out.type = type;
    f->found = container ? 2 : 1;
    return container ? GW_JSON_SKIP : 0;
  }
  if (type != (f->comp[level].key ? GW_JSON_OBJECT : GW_JSON_ARRAY))
    return 0; /* a scalar or the wrong container where the path goes on */
  f->on_path = level + 1;
  f->index = 0;
  f->key_matches = 0;
  return 1;
}

static int find_null(void *ctx) {
  return find_value(ctx, GW_JSON_NULL);
}
static int find_bool(void *ctx, int v) {
  return find_value(ctx, v ? GW_JSON_TRUE : GW_JSON_FALSE);
}
static int find_number(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return find_value(ctx, GW_JSON_NUMBER);
}
static int find_string(void *ctx, const unsigned char *s, size_t n) {
  struct finder *f = ctx;
  int r = find_value(f, GW_JSON_STRING);
  if (f->found == 1 && f->buf && f->cap) {
    size_t k = n < f->cap - 1 ? n : f->cap - 1;
    memcpy(f->buf, s, k);
    f->buf[k] = '\0';
  }
  return r;
}
static int find_start(struct finder *f, enum gw_json_type type) {
  int r = find_value(f, type);
  f->w.depth++;
  return r;
}
static int find_start_map(void *ctx) {
  return find_start(ctx, GW_JSON_OBJECT);
}
static int find_start_array(void *ctx) {
  return find_start(ctx, GW_JSON_ARRAY);
}
static int find_key(void *ctx, const unsigned char *s, size_t n) {
  struct finder *f = ctx;
  f->w.last_end = token_end(&f->w);
  const struct component *c = f->w.depth == f->on_path ? &f->comp[f->on_path - 1] : NULL;
  f->key_matches = c && c->key && c->key_len == n && memcmp(c->key, s, n) == 0;
  return 1;
}
static int find_end(void *ctx) {
  struct finder *f = ctx;
  f->w.last_end = token_end(&f->w);
  if (f->found == 2) {
    f->out.end = f->w.base + f->w.last_end; /* only the target's own end is reported inside it */
    f->found = 1;
    return 0;
  }
  if (f->w.depth == f->on_path)
    return 0; /* the container on the path ends without the value */
  f->w.depth--;
  return 1;
}

static const struct gw_json_callbacks FIND = {find_null, find_bool, find_number,      find_string, find_start_map,
                                              find_key,  find_end,  find_start_array, find_end};

/* Runs callbacks over the span of v; the walk is the ctx's first member. */
static void walk_span(struct gw_json_value v, const struct gw_json_callbacks *cb, struct walk *w) {
  w->text = v.doc->text + v.start;
  w->base = v.start;
  w->j = gw_json_new(cb, w, DOC_MAX_DEPTH);
  size_t used = 0;
  (void)gw_json_parse(w->j, (const unsigned char *)w->text, v.end - v.start, 1, &used);
  gw_json_free(w->j);
  w->j = NULL;
}

static struct gw_json_value find(struct gw_json_value v, const char *path, char *buf, size_t cap) {
  struct gw_json_value none = {v.doc, 0, 0, 0, 0, GW_JSON_ABSENT};
  struct component comp[PATH_MAX_COMPONENTS];
  int n = path ? parse_path(path, comp) : -1;
  if (!v.doc || !v.doc->text || v.type == GW_JSON_ABSENT || n < 0)
    return none;
  struct finder f;
  memset(&f, 0, sizeof f);
  f.comp = comp;
  f.ncomp = n;
  f.out = none;
  f.buf = buf;
  f.cap = cap;
  walk_span(v, &FIND, &f.w);
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

static int list_value(struct lister *l, enum gw_json_type type) {
  int container = type == GW_JSON_ARRAY || type == GW_JSON_OBJECT;
  size_t start = token_start(&l->w);
  l->w.last_end = token_end(&l->w);
  if (l->w.depth == 0)
    return container; /* v itself: only a container has members */
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->m = gw_xrealloc(l->m, l->cap * sizeof *l->m);
  }
  struct gw_json_value *m = &l->m[l->n++];
  *m = (struct gw_json_value){NULL, l->w.base + start, l->w.base + l->w.last_end, l->key_start, l->key_end, type};
  l->key_start = l->key_end = 0;
  return container ? GW_JSON_SKIP : 1;
}

static int list_null(void *ctx) {
  return list_value(ctx, GW_JSON_NULL);
}
static int list_bool(void *ctx, int v) {
  return list_value(ctx, v ? GW_JSON_TRUE : GW_JSON_FALSE);
}
static int list_number(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return list_value(ctx, GW_JSON_NUMBER);
}
static int list_string(void *ctx, const unsigned char *s, size_t n) {
  (void)s;
  (void)n;
  return list_value(ctx, GW_JSON_STRING);
}
static int list_start(struct lister *l, enum gw_json_type type) {
  int r = list_value(l, type);
  l->w.depth++;
  return r;
}
static int list_start_map(void *ctx) {
  return list_start(ctx, GW_JSON_OBJECT);
}
static int list_start_array(void *ctx) {
  return list_start(ctx, GW_JSON_ARRAY);
}
static int list_key(void *ctx, const unsigned char *s, size_t n) {
  (void)s;
  (void)n;
  struct lister *l = ctx;
  l->key_start = l->w.base + token_start(&l->w);
  l->w.last_end = token_end(&l->w);
  l->key_end = l->w.base + l->w.last_end;
  return 1;
}
static int list_end(void *ctx) {
  struct lister *l = ctx;
  l->w.last_end = token_end(&l->w);
  if (l->w.depth == 1)
    return 0;                                     /* v itself ends */
  l->m[l->n - 1].end = l->w.base + l->w.last_end; /* a skipped member's end */
  l->w.depth--;
  return 1;
}

static const struct gw_json_callbacks LIST = {list_null, list_bool, list_number,      list_string, list_start_map,
                                              list_key,  list_end,  list_start_array, list_end};

size_t gw_json_members(struct gw_json_value v, struct gw_json_value **out) {
  *out = NULL;
  if (!v.doc || !v.doc->text || (v.type != GW_JSON_ARRAY && v.type != GW_JSON_OBJECT))
    return 0;
  struct lister l;
  memset(&l, 0, sizeof l);
  walk_span(v, &LIST, &l.w);
  for (size_t i = 0; i < l.n; i++)
    l.m[i].doc = v.doc;
  *out = l.m;
  return l.n;
}
