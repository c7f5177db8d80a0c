#include "run_facts.h"
#include "store/store_model.h"

#include <math.h>
#include <string.h>

#include "core/json_stream.h"
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

static int needs_quotes(const unsigned char *s, size_t n) {
  if (n == 0)
    return 1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_./=:,+@%", c) ||
          c >= 0x80))
      return 1;
  }
  return 0;
}

/* The recorded command, a JSON array of strings, read by the project's
 * JSON parser: each word goes to the line as a shell would take it back;
 * anything else stops the parse and the text is shown raw. */
struct command_line {
  char *out;
  size_t cap, len;
  int depth, words;
};

static int cmd_stop(void *ctx) {
  (void)ctx;
  return 0;
}
static int cmd_stop_bool(void *ctx, int v) {
  (void)v;
  return cmd_stop(ctx);
}
static int cmd_stop_number(void *ctx, const char *s, size_t n) {
  (void)s;
  (void)n;
  return cmd_stop(ctx);
}
static int cmd_stop_key(void *ctx, const unsigned char *s, size_t n) {
  (void)s;
  (void)n;
  return cmd_stop(ctx);
}
static int cmd_start_array(void *ctx) {
  return ++((struct command_line *)ctx)->depth == 1; /* a nested array is no command */
}
static int cmd_end_array(void *ctx) {
  (void)ctx;
  return 1;
}

static int cmd_word(void *ctx, const unsigned char *s, size_t n) {
  struct command_line *c = ctx;
  if (c->depth != 1)
    return 0;
  const unsigned char *nul = memchr(s, '\0', n); /* a word ends at an escaped NUL, as argv's did */
  if (nul)
    n = (size_t)(nul - s);
  if (c->words++)
    append(c->out, c->cap, &c->len, " ", 1);
  if (!needs_quotes(s, n)) {
    append(c->out, c->cap, &c->len, (const char *)s, n);
    return 1;
  }
  /* single quotes; an embedded one becomes '\'' */
  append(c->out, c->cap, &c->len, "'", 1);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'')
      append(c->out, c->cap, &c->len, "'\\''", 4);
    else
      append(c->out, c->cap, &c->len, (const char *)s + i, 1);
  }
  append(c->out, c->cap, &c->len, "'", 1);
  return 1;
}

static const struct gw_json_callbacks COMMAND = {cmd_stop,     cmd_stop_bool, cmd_stop_number, cmd_word,     cmd_stop,
                                                 cmd_stop_key, cmd_end_array, cmd_start_array, cmd_end_array};

void gw_command_for_people(const char *json, char *out, size_t cap) {
  if (cap == 0)
    return;
  out[0] = '\0';
  if (!json)
    return;
  struct command_line c = {out, cap, 0, 0, 0};
  /* one level of array; the limit only bounds the parser's stack */
  struct gw_json *j = gw_json_new(&COMMAND, &c, 2);
  size_t used = 0;
  enum gw_json_status st = gw_json_parse(j, (const unsigned char *)json, strlen(json), 1, &used);
  gw_json_free(j);
  if (st != GW_JSON_OK || c.depth != 1)
    gw_strlcpy(out, json, cap); /* not a list of words: shown as recorded */
}

const struct gw_gpu_facts *gw_run_facts_gpu(const struct gw_run_facts *f, int gpu) {
  for (int i = 0; i < f->ngpus; i++)
    if (f->gpus[i].gpu == gpu)
      return &f->gpus[i];
  return NULL;
}

gw_status gw_run_facts_of(const struct gw_recording *rec, struct gw_run_facts *out, struct gw_err *err) {
  memset(out, 0, sizeof *out); /* a recording without its store leaves the facts unknown */
  out->exit_status = -1;
  out->mem_total_bytes = NAN;
  if (!rec || !rec->store) {
    gw_err_set(err, "the run's facts are read from a recording loaded from its file");
    return GW_EINPUT;
  }
  gw_store_read_run_facts(rec->store, out, gw_command_for_people);
  return GW_OK;
}
