#include "core/json_stream.h"

#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "core/util.h"

/* Where the parser stands between tokens. */
enum state {
  S_VALUE,     /* a value: the document's, after ':' or after ',' in an array */
  S_DONE,      /* only whitespace may follow */
  S_MAP_FIRST, /* after '{': a key or '}' */
  S_MAP_KEY,   /* after ',': a key */
  S_MAP_COLON, /* after a key */
  S_MAP_NEXT,  /* after a member: ',' or '}' */
  S_ARR_FIRST, /* after '[': a value or ']' */
  S_ARR_NEXT,  /* after an element: ',' or ']' */
};

struct gw_json {
  const struct gw_json_callbacks *cb;
  void *ctx;
  enum state state;
  int depth, max_depth;
  int skip_depth;       /* > 0: inside a skipped container opened at this depth */
  unsigned char *stack; /* 1 = object, 0 = array, per depth */
  uint64_t base;        /* absolute offset of the buffer being parsed */
  size_t at;            /* offset in that buffer for gw_json_offset */
  const char *error;
  unsigned char *scratch; /* decoded strings that had escapes */
  size_t scratch_cap;
};

struct gw_json *gw_json_new(const struct gw_json_callbacks *cb, void *ctx, int max_depth) {
  struct gw_json *j = gw_xcalloc(1, sizeof *j);
  j->cb = cb;
  j->ctx = ctx;
  j->max_depth = max_depth;
  j->stack = gw_xcalloc((size_t)max_depth + 1, 1);
  return j;
}

void gw_json_free(struct gw_json *j) {
  if (!j)
    return;
  free(j->stack);
  free(j->scratch);
  free(j);
}

uint64_t gw_json_offset(const struct gw_json *j) {
  return j->base + j->at;
}

const char *gw_json_error(const struct gw_json *j) {
  return j->error ? _(j->error) : "";
}

/* ---- strings ---- */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Non-zero when some byte of w is '"', '\\' or a control character; the
 * usual has-zero-byte trick, exact for the lowest such byte, which is all the
 * byte loop after it needs. */
static uint64_t special_bytes(uint64_t w) {
  uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
  return (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20) & ~w)) & HIGHS;
}

static int is_hex(unsigned char c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

enum lex { LEX_OK, LEX_MORE, LEX_BAD };

/* Finds the end of the string whose opening quote is at s[-1]: *close is
 * its closing quote. Escapes are checked as yajl checks them; bytes above
 * 0x7f pass unchecked (the importer treats names as opaque bytes). */
static enum lex scan_string(const unsigned char *s, const unsigned char *end, const unsigned char **close, int *escaped,
                            const unsigned char **bad) {
  const unsigned char *q = s;
  *escaped = 0;
  for (;;) {
    while (end - q >= 8) {
      uint64_t w;
      memcpy(&w, q, sizeof w);
      if (special_bytes(w))
        break;
      q += 8;
    }
    while (q < end && *q != '"' && *q != '\\' && *q >= 0x20)
      q++;
    if (q == end)
      return LEX_MORE;
    if (*q == '"') {
      *close = q;
      return LEX_OK;
    }
    if (*q < 0x20) {
      *bad = q;
      return LEX_BAD;
    }
    /* an escape */
    *escaped = 1;
    if (end - q < 2)
      return LEX_MORE;
    switch (q[1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      q += 2;
      break;
    case 'u':
      for (int i = 2; i < 6; i++) {
        if (q + i >= end)
          return LEX_MORE;
        if (!is_hex(q[i])) {
          *bad = q + i;
          return LEX_BAD;
        }
      }
      q += 6;
      break;
    default:
      *bad = q + 1;
      return LEX_BAD;
    }
  }
}

static unsigned hex4(const unsigned char *h) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = h[i];
    v = (v << 4) | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

/* UTF-8 of a code point as yajl writes it (yajl_encode.c). */
static size_t utf8_of(unsigned cp, unsigned char *out) {
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)((cp >> 6) | 0xC0);
    out[1] = (unsigned char)((cp & 0x3F) | 0x80);
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)((cp >> 12) | 0xE0);
    out[1] = (unsigned char)(((cp >> 6) & 0x3F) | 0x80);
    out[2] = (unsigned char)((cp & 0x3F) | 0x80);
    return 3;
  }
  if (cp < 0x200000) {
    out[0] = (unsigned char)((cp >> 18) | 0xF0);
    out[1] = (unsigned char)(((cp >> 12) & 0x3F) | 0x80);
    out[2] = (unsigned char)(((cp >> 6) & 0x3F) | 0x80);
    out[3] = (unsigned char)((cp & 0x3F) | 0x80);
    return 4;
  }
  out[0] = '?';
  return 1;
}

/* Decodes str[0, len) (escapes already checked; str[len] is the closing
 * quote) exactly as yajl_string_decode does, its quirks included (a high
 * surrogate joins whatever \u escape follows; alone it becomes '?'), so
 * names come out byte for byte as before (tests/unit/test_import_json_stream.c
 * compares the two). Returns the decoded length in j->scratch. */
static size_t decode_string(struct gw_json *j, const unsigned char *str, size_t len) {
  if (j->scratch_cap < len + 1) {
    j->scratch_cap = len + 1 > 256 ? len + 1 : 256;
    free(j->scratch);
    j->scratch = gw_xcalloc(1, j->scratch_cap);
  }
  unsigned char *out = j->scratch;
  size_t o = 0, beg = 0, end = 0;
  while (end < len) {
    if (str[end] != '\\') {
      end++;
      continue;
    }
    memcpy(out + o, str + beg, end - beg);
    o += end - beg;
    unsigned char one = '?';
    switch (str[++end]) {
    case 'r':
      one = '\r';
      break;
    case 'n':
      one = '\n';
      break;
    case '\\':
      one = '\\';
      break;
    case '/':
      one = '/';
      break;
    case '"':
      one = '"';
      break;
    case 'f':
      one = '\f';
      break;
    case 'b':
      one = '\b';
      break;
    case 't':
      one = '\t';
      break;
    case 'u': {
      unsigned cp = hex4(str + end + 1);
      end += 4;
      if ((cp & 0xFC00) == 0xD800) {
        end++;
        /* str[end] is at most the closing quote; an escape inside the
         * string always has its character and, for \u, four hex digits */
        if (end < len && str[end] == '\\' && str[end + 1] == 'u') {
          unsigned low = hex4(str + end + 2);
          cp = ((cp & 0x3F) << 10) | ((((cp >> 6) & 0xF) + 1) << 16) | (low & 0x3FF);
          end += 5;
        } else {
          out[o++] = '?';
          beg = end;
          continue;
        }
      }
      unsigned char u[4];
      size_t m = utf8_of(cp, u);
      /* 4 UTF-8 bytes come from 12 escaped ones, so out never passes str */
      memcpy(out + o, u, m);
      o += m;
      beg = ++end;
      continue;
    }
    default:
      break;
    }
    out[o++] = one;
    beg = ++end;
  }
  if (beg < len) {
    memcpy(out + o, str + beg, len - beg);
    o += len - beg;
  }
  return o;
}

/* ---- the parser ---- */

static int is_digit(unsigned char c) {
  return c >= '0' && c <= '9';
}

static int is_space(unsigned char c) {
  /* yajl's whitespace, \v and \f included */
  return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Each state is a label; the common path goes from one to the next without
 * going back through the dispatch, which is only for resuming. The state is
 * stored on entry so that running out of input can stop anywhere. */
enum gw_json_status gw_json_parse(struct gw_json *j, const unsigned char *buf, size_t n, int at_end,
                                  size_t *used_bytes) {
  const struct gw_json_callbacks *cb = j->cb;
  void *ctx = j->ctx;
  const unsigned char *p = buf, *end = buf + n, *tok = buf;
  enum gw_json_status st = GW_JSON_OK;
  int is_key = 0, r;
  unsigned char c;
  j->error = NULL;
#define QUIET (j->skip_depth != 0)
#define FAIL(where, why)                                                                                               \
  do {                                                                                                                 \
    j->at = (size_t)((where) + 1 - buf);                                                                               \
    j->error = (why);                                                                                                  \
    st = GW_JSON_ERROR;                                                                                                \
    goto out;                                                                                                          \
  } while (0)
#define CALL(expr)                                                                                                     \
  do {                                                                                                                 \
    if (!(r = (expr))) {                                                                                               \
      st = GW_JSON_CANCELED;                                                                                           \
      goto out;                                                                                                        \
    }                                                                                                                  \
  } while (0)
  /* skips whitespace; at the end of the input, stops in state S */
#define NEXT(S)                                                                                                        \
  do {                                                                                                                 \
    j->state = (S);                                                                                                    \
    while (p < end && is_space(*p))                                                                                    \
      p++;                                                                                                             \
    if (p == end)                                                                                                      \
      goto out_of_input;                                                                                               \
    tok = p;                                                                                                           \
    c = *p;                                                                                                            \
  } while (0)

  switch (j->state) {
  case S_VALUE:
    goto value;
  case S_DONE:
    goto done;
  case S_MAP_FIRST:
    goto map_first;
  case S_MAP_KEY:
    goto map_key;
  case S_MAP_COLON:
    goto map_colon;
  case S_MAP_NEXT:
    goto map_next;
  case S_ARR_FIRST:
    goto arr_first;
  case S_ARR_NEXT:
    goto arr_next;
  }

after_value:
  if (j->depth == 0)
    goto done;
  if (j->stack[j->depth])
    goto map_next;
  goto arr_next;

done:
  NEXT(S_DONE);
  FAIL(tok, N_("trailing garbage"));

map_first:
  NEXT(S_MAP_FIRST);
  if (c == '}')
    goto close_container;
  goto key;

map_key:
  NEXT(S_MAP_KEY);
key:
  if (c != '"')
    FAIL(tok, N_("invalid object key (must be a string)"));
  is_key = 1;
  goto string;

map_colon:
  NEXT(S_MAP_COLON);
  if (c != ':')
    FAIL(tok, N_("object key and value must be separated by a colon (':')"));
  p++;
  goto value;

map_next:
  NEXT(S_MAP_NEXT);
  if (c == ',') {
    p++;
    goto map_key;
  }
  if (c == '}')
    goto close_container;
  FAIL(tok, N_("after key and value, inside map, I expect ',' or '}'"));

arr_first:
  NEXT(S_ARR_FIRST);
  if (c == ']')
    goto close_container;
  goto have_value;

arr_next:
  NEXT(S_ARR_NEXT);
  if (c == ',') {
    p++;
    goto value;
  }
  if (c == ']')
    goto close_container;
  FAIL(tok, N_("after array element, I expect ',' or ']'"));

value:
  NEXT(S_VALUE);
have_value:
  switch (c) {
  case '{':
  case '[':
    if (j->depth >= j->max_depth) {
      j->at = (size_t)(tok + 1 - buf);
      st = GW_JSON_TOO_DEEP;
      goto out;
    }
    p++;
    j->at = (size_t)(p - buf);
    j->stack[++j->depth] = c == '{';
    if (!QUIET) {
      CALL(c == '{' ? cb->start_map(ctx) : cb->start_array(ctx));
      if (r == GW_JSON_SKIP)
        j->skip_depth = j->depth;
    }
    if (c == '{')
      goto map_first;
    goto arr_first;
  case '"':
    is_key = 0;
    goto string;
  case 't':
  case 'f':
  case 'n': {
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    size_t m = strlen(word), have = (size_t)(end - p);
    if (memcmp(p, word, have < m ? have : m) != 0)
      FAIL(tok, N_("invalid string in json text"));
    if (have < m)
      goto cut_short;
    p += m;
    j->at = (size_t)(p - buf);
    if (!QUIET)
      CALL(c == 'n' ? cb->null_value(ctx) : cb->boolean(ctx, c == 't'));
    goto after_value;
  }
  default:
    break;
  }
  /* a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  {
    const unsigned char *q = p;
    if (*q == '-' && ++q == end)
      goto cut_short;
    if (*q == '0') {
      q++;
    } else if (*q >= '1' && *q <= '9') {
      for (q++; q < end && is_digit(*q);)
        q++;
    } else {
      FAIL(q,
           q == p ? N_("invalid char in json text") : N_("malformed number, a digit is required after the minus sign"));
    }
    if (q < end && *q == '.') {
      if (++q == end)
        goto cut_short;
      if (!is_digit(*q))
        FAIL(q, N_("malformed number, a digit is required after the decimal point"));
      for (q++; q < end && is_digit(*q);)
        q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
      if (++q < end && (*q == '+' || *q == '-'))
        q++;
      if (q == end)
        goto cut_short;
      if (!is_digit(*q))
        FAIL(q, N_("malformed number, a digit is required after the exponent"));
      for (q++; q < end && is_digit(*q);)
        q++;
    }
    if (q == end && !at_end)
      goto more; /* more digits may follow */
    p = q;
    j->at = (size_t)(p - buf);
    if (!QUIET)
      CALL(cb->number(ctx, (const char *)tok, (size_t)(p - tok)));
    goto after_value;
  }

string : {
  const unsigned char *close = NULL, *bad = NULL;
  int escaped;
  enum lex lx = scan_string(p + 1, end, &close, &escaped, &bad);
  if (lx == LEX_MORE)
    goto cut_short;
  if (lx == LEX_BAD)
    FAIL(bad, N_("invalid character or escape inside string"));
  p = close + 1;
  j->at = (size_t)(p - buf);
  if (!QUIET) {
    const unsigned char *s = tok + 1;
    size_t len = (size_t)(close - s);
    if (escaped) {
      len = decode_string(j, s, len);
      s = j->scratch;
    }
    CALL(is_key ? cb->map_key(ctx, s, len) : cb->string(ctx, s, len));
  }
  if (is_key)
    goto map_colon;
  goto after_value;
}

close_container : {
  int was_map = j->stack[j->depth];
  p++;
  j->at = (size_t)(p - buf);
  if (j->skip_depth == j->depth)
    j->skip_depth = 0; /* the skipped container's own end is reported */
  j->depth--;
  if (!QUIET)
    CALL(was_map ? cb->end_map(ctx) : cb->end_array(ctx));
  goto after_value;
}

cut_short: /* a token runs to the end of the input */
  if (at_end) {
    j->at = n;
    j->error = N_("premature EOF");
    st = GW_JSON_INCOMPLETE;
    goto out;
  }
more:
  p = tok; /* the caller passes this token again with more bytes */
  goto out;

out_of_input:
  if (at_end && j->state != S_DONE) {
    j->at = n;
    j->error = N_("premature EOF");
    st = GW_JSON_INCOMPLETE;
  }
out:
#undef QUIET
#undef FAIL
#undef CALL
#undef NEXT
  *used_bytes = (size_t)(p - buf);
  if (st == GW_JSON_OK) {
    /* the next buffer starts where this one was taken up to */
    j->base += *used_bytes;
    j->at = 0;
  }
  return st;
}
