/* Run setups and the differences between two runs (see run_setup.h). */
#include "compare/run_setup.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#include "store/store_setup.h"

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void gw_run_setup_add_arg(struct gw_run_setup *f, const char *arg) {
  f->argv = gw_xrealloc(f->argv, (size_t)(f->argc + 2) * sizeof *f->argv);
  f->argv[f->argc++] = gw_xstrdup(arg ? arg : "");
  f->argv[f->argc] = NULL;
}

void gw_run_setup_add_env(struct gw_run_setup *f, const char *name, const char *value) {
  f->env = gw_xrealloc(f->env, (size_t)(f->nenv + 1) * sizeof *f->env);
  f->env[f->nenv].name = gw_xstrdup(name ? name : "");
  f->env[f->nenv].value = gw_xstrdup(value ? value : "");
  f->nenv++;
}

/* The GPU models as "2 x NVIDIA H200 + NVIDIA A100", cut at the last whole model. */
struct gpu_text {
  struct gw_run_setup *f;
  size_t used;
  int full;
};

static void add_arg(void *ctx, const char *arg) {
  gw_run_setup_add_arg(((struct gpu_text *)ctx)->f, arg);
}

static void add_env(void *ctx, const char *name, const char *value) {
  gw_run_setup_add_env(((struct gpu_text *)ctx)->f, name, value);
}

static void add_gpu_model(void *ctx, const char *name, int count) {
  struct gpu_text *g = ctx;
  if (g->full)
    return;
  char one[128];
  if (count > 1)
    snprintf(one, sizeof one, "%d x %s", count, name);
  else
    gw_strlcpy(one, name, sizeof one);
  char *gpu = g->f->gpu;
  size_t cap = sizeof g->f->gpu;
  int w = snprintf(gpu + g->used, cap - g->used, "%s%s", g->used ? " + " : "", one);
  if (w < 0 || (size_t)w >= cap - g->used)
    g->full = 1;
  else
    g->used += (size_t)w;
}

gw_status gw_run_setup_load(struct gw_store *store, const char *path, struct gw_run_setup *f, struct gw_err *err) {
  memset(f, 0, sizeof *f);
  gw_strlcpy(f->stem, base_name(path), sizeof f->stem);
  size_t len = strlen(f->stem);
  if (len > 3 && strcmp(f->stem + len - 3, ".db") == 0)
    f->stem[len - 3] = '\0';
  struct gpu_text g = {.f = f};
  const struct gw_store_setup_lists lists = {.ctx = &g, .arg = add_arg, .env = add_env, .gpu_model = add_gpu_model};
  struct gw_store_setup_facts facts;
  gw_status rc = gw_store_read_setup(store, &facts, &lists, err);
  if (rc)
    return rc;
  gw_strlcpy(f->host, facts.hostname, sizeof f->host);
  if (facts.cuda_driver_known) {
    /* a driver text of 90 bytes or more is cut, as any text in struct gw_run_setup */
    if (snprintf(f->driver, sizeof f->driver, "%s (CUDA %d)", facts.driver_version, facts.cuda_driver_version) < 0)
      f->driver[0] = '\0';
  } else
    gw_strlcpy(f->driver, facts.driver_version, sizeof f->driver);
  if (facts.change[0]) {
    gw_strlcpy(f->change, facts.change, sizeof f->change);
    gw_strlcpy(f->change_from, "meta", sizeof f->change_from);
  }
  return GW_OK;
}

void gw_run_setup_copy(struct gw_run_setup *dst, const struct gw_run_setup *src) {
  memcpy(dst, src, sizeof *dst);
  dst->argc = 0;
  dst->argv = NULL;
  dst->nenv = 0;
  dst->env = NULL;
  for (int i = 0; i < src->argc; i++)
    gw_run_setup_add_arg(dst, src->argv[i]);
  for (int i = 0; i < src->nenv; i++)
    gw_run_setup_add_env(dst, src->env[i].name, src->env[i].value);
}

void gw_run_setup_free(struct gw_run_setup *f) {
  for (int i = 0; i < f->argc; i++)
    free(f->argv[i]);
  free(f->argv);
  for (int i = 0; i < f->nenv; i++) {
    free(f->env[i].name);
    free(f->env[i].value);
  }
  free(f->env);
  f->argv = NULL;
  f->env = NULL;
  f->argc = f->nenv = 0;
}

const char *gw_change_kind_id(enum gw_change_kind k) {
  switch (k) {
  case GW_CHANGE_PROGRAM:
    return "program";
  case GW_CHANGE_ARG:
    return "argument";
  case GW_CHANGE_ENV:
    return "environment";
  case GW_CHANGE_HOST:
    return "host";
  case GW_CHANGE_DRIVER:
    return "driver";
  case GW_CHANGE_GPU:
    return "gpu";
  }
  return "?";
}

/* ---- the command line as named settings ---- */

struct arg_item {
  char key[128];     /* "--lr", "argument 2", "program"; a repeat gets " #2" */
  const char *value; /* "" for a bare flag */
  int flag;
};

static int is_number(const char *s) {
  double d;
  return gw_parse_double(s, &d) == 0;
}

static int is_option(const char *s) {
  return s[0] == '-' && s[1] && !is_number(s);
}

/* Where the program ends: argv[0], and for Python its own flags and the
 * script or -m module, so "python3 -u train.py" reads as one program. */
static int program_end(char *const *argv, int argc) {
  if (strncmp(base_name(argv[0]), "python", 6) != 0)
    return 1;
  int i = 1;
  while (i < argc && is_option(argv[i])) {
    if (strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "-c") == 0)
      return i + 2 < argc ? i + 2 : argc;
    i += (strcmp(argv[i], "-X") == 0 || strcmp(argv[i], "-W") == 0) ? 2 : 1;
  }
  return i < argc ? i + 1 : argc;
}

static int count_key(const struct arg_item *items, int n, const char *key) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    const char *k = items[i].key;
    size_t len = strlen(key);
    if (strncmp(k, key, len) == 0 && (k[len] == '\0' || strncmp(k + len, " #", 2) == 0))
      c++;
  }
  return c;
}

static void add_item(struct arg_item *items, int *n, const char *key, const char *value, int flag) {
  struct arg_item *it = &items[*n];
  int seen = count_key(items, *n, key);
  if (seen)
    snprintf(it->key, sizeof it->key, "%s #%d", key, seen + 1);
  else
    gw_strlcpy(it->key, key, sizeof it->key);
  it->value = value;
  it->flag = flag;
  (*n)++;
}

/* items needs argc + 1 entries; the program string goes to prog. */
static int parse_args(const struct gw_run_setup *f, struct arg_item *items, char *prog, size_t cap) {
  int n = 0;
  prog[0] = '\0';
  if (f->argc == 0)
    return 0;
  int end = program_end(f->argv, f->argc);
  size_t used = 0;
  for (int i = 0; i < end; i++) {
    int w = snprintf(prog + used, cap - used, "%s%s", i ? " " : "", f->argv[i]);
    if (w < 0 || (size_t)w >= cap - used)
      break;
    used += (size_t)w;
  }
  int positional = 0;
  for (int i = end; i < f->argc; i++) {
    const char *a = f->argv[i];
    if (is_option(a)) {
      const char *eq = strchr(a, '=');
      if (eq && a[1] == '-') {
        char key[128];
        size_t klen = (size_t)(eq - a) < sizeof key - 1 ? (size_t)(eq - a) : sizeof key - 1;
        memcpy(key, a, klen);
        key[klen] = '\0';
        add_item(items, &n, key, eq + 1, 0);
      } else if (i + 1 < f->argc && !is_option(f->argv[i + 1])) {
        add_item(items, &n, a, f->argv[i + 1], 0);
        i++;
      } else {
        add_item(items, &n, a, "", 1);
      }
    } else {
      char key[32];
      snprintf(key, sizeof key, "argument %d", ++positional);
      add_item(items, &n, key, a, 0);
    }
  }
  return n;
}

/* "--Output_Dir #2" -> "output-dir" */
static void normalize_key(const char *key, char *out, size_t cap) {
  while (*key == '-')
    key++;
  size_t j = 0;
  for (; *key && j + 1 < cap; key++) {
    if (key[0] == ' ' && key[1] == '#')
      break;
    out[j++] = *key == '_' ? '-' : (char)tolower((unsigned char)*key);
  }
  out[j] = '\0';
}

/* Options whose values name where output goes or what the run is called:
 * they differ between any two runs and say nothing about the job. */
static const char *const bookkeeping_options[] = {"o",          "out",       "output",          "output-dir",
                                                  "out-dir",    "outdir",    "output-path",     "output-file",
                                                  "log-dir",    "logdir",    "log-file",        "logging-dir",
                                                  "save-dir",   "save-path", "checkpoint-dir",  "ckpt-dir",
                                                  "run-name",   "exp-name",  "experiment-name", "scenario-name",
                                                  "wandb-name", "tag",       "label",           NULL};

static int is_bookkeeping(const char *key, const char *const *ignore, int nignore) {
  char k[128];
  normalize_key(key, k, sizeof k);
  for (int i = 0; bookkeeping_options[i]; i++)
    if (strcmp(k, bookkeeping_options[i]) == 0)
      return 1;
  /* --expected-*: what a test harness expects the run to show, a label */
  if (strncmp(k, "expected-", 9) == 0)
    return 1;
  for (int i = 0; i < nignore; i++) {
    char ig[128];
    normalize_key(ignore[i], ig, sizeof ig);
    if (strcmp(k, ig) == 0)
      return 1;
  }
  return 0;
}

/* A value that names its own recording (worked_case_s1 in worked_case_s1.db)
 * is a label of that run. */
static int names_own_run(const char *value, const char *stem) {
  return stem[0] && strlen(stem) >= 3 && strstr(value, stem) != NULL;
}

static void push_change(struct gw_change_list *out, enum gw_change_kind kind, const char *what, const char *before,
                        const char *after) {
  if (out->n < GW_MAX_CHANGES) {
    struct gw_change *c = &out->items[out->n];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    gw_strlcpy(c->what, what, sizeof c->what);
    if (before) {
      c->before_set = 1;
      gw_strlcpy(c->before, before, sizeof c->before);
    }
    if (after) {
      c->after_set = 1;
      gw_strlcpy(c->after, after, sizeof c->after);
    }
  }
  out->n++;
}

static void push_ignored(struct gw_change_list *out, const char *key) {
  for (int i = 0; i < out->nignored && i < GW_MAX_IGNORED; i++)
    if (strcmp(out->ignored[i], key) == 0)
      return;
  if (out->nignored < GW_MAX_IGNORED)
    gw_strlcpy(out->ignored[out->nignored], key, sizeof out->ignored[0]);
  out->nignored++;
}

static const struct arg_item *find_item(const struct arg_item *items, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(items[i].key, key) == 0)
      return &items[i];
  return NULL;
}

static const char *shown_value(const struct arg_item *it) {
  return it->flag ? "(set)" : it->value;
}

static void diff_args(const struct gw_run_setup *a, const struct gw_run_setup *b, const char *const *ignore,
                      int nignore, struct gw_change_list *out) {
  struct arg_item *ia = gw_xcalloc((size_t)a->argc + 1, sizeof *ia);
  struct arg_item *ib = gw_xcalloc((size_t)b->argc + 1, sizeof *ib);
  char pa[512], pb[512];
  int na = parse_args(a, ia, pa, sizeof pa), nb = parse_args(b, ib, pb, sizeof pb);
  if (strcmp(pa, pb) != 0)
    push_change(out, GW_CHANGE_PROGRAM, "program", pa, pb);
  /* a's settings in a's order, then those only b has */
  for (int pass = 0; pass < 2; pass++) {
    const struct arg_item *src = pass == 0 ? ia : ib;
    int nsrc = pass == 0 ? na : nb;
    for (int i = 0; i < nsrc; i++) {
      const struct arg_item *x = find_item(ia, na, src[i].key), *y = find_item(ib, nb, src[i].key);
      if (pass == 1 && x)
        continue; /* already seen in the first pass */
      if (x && y && strcmp(x->value, y->value) == 0 && x->flag == y->flag)
        continue;
      if (is_bookkeeping(src[i].key, ignore, nignore) || (x && names_own_run(x->value, a->stem)) ||
          (y && names_own_run(y->value, b->stem))) {
        push_ignored(out, src[i].key);
        continue;
      }
      push_change(out, GW_CHANGE_ARG, src[i].key, x ? shown_value(x) : NULL, y ? shown_value(y) : NULL);
    }
  }
  free(ia);
  free(ib);
}

static const char *env_value(const struct gw_run_setup *f, const char *name) {
  for (int i = 0; i < f->nenv; i++)
    if (strcmp(f->env[i].name, name) == 0)
      return f->env[i].value;
  return NULL;
}

static void diff_env(const struct gw_run_setup *a, const struct gw_run_setup *b, struct gw_change_list *out) {
  for (int i = 0; i < a->nenv; i++) {
    const char *vb = env_value(b, a->env[i].name);
    if (!vb || strcmp(vb, a->env[i].value) != 0)
      push_change(out, GW_CHANGE_ENV, a->env[i].name, a->env[i].value, vb);
  }
  for (int i = 0; i < b->nenv; i++)
    if (!env_value(a, b->env[i].name))
      push_change(out, GW_CHANGE_ENV, b->env[i].name, NULL, b->env[i].value);
}

static void diff_fact(struct gw_change_list *out, enum gw_change_kind kind, const char *what, const char *va,
                      const char *vb) {
  /* unknown on either side is no evidence of a change */
  if (va[0] && vb[0] && strcmp(va, vb) != 0)
    push_change(out, kind, what, va, vb);
}

void gw_run_setup_diff(const struct gw_run_setup *a, const struct gw_run_setup *b, const char *const *ignore,
                       int nignore, struct gw_change_list *out) {
  memset(out, 0, sizeof *out);
  out->commands_known = a->argc > 0 && b->argc > 0;
  if (out->commands_known)
    diff_args(a, b, ignore, nignore, out);
  diff_env(a, b, out);
  diff_fact(out, GW_CHANGE_HOST, "host", a->host, b->host);
  diff_fact(out, GW_CHANGE_DRIVER, "driver", a->driver, b->driver);
  diff_fact(out, GW_CHANGE_GPU, "GPU", a->gpu, b->gpu);
}

void gw_change_what(const struct gw_change *c, char *buf, size_t cap) {
  int n, used;
  switch (c->kind) {
  case GW_CHANGE_PROGRAM:
    /* TRANSLATORS: the program a run started (argv[0], or python and its
     * script), named in a list of what changed between two runs */
    snprintf(buf, cap, "%s", _("program"));
    return;
  case GW_CHANGE_HOST:
    /* TRANSLATORS: the machine a run ran on, in a list of what changed */
    snprintf(buf, cap, "%s", _("host"));
    return;
  case GW_CHANGE_DRIVER:
    /* TRANSLATORS: the NVIDIA driver, in a list of what changed */
    snprintf(buf, cap, "%s", _("driver"));
    return;
  case GW_CHANGE_ARG:
    /* "argument 2" (a positional argument), "argument 2 #2" never occurs */
    if (sscanf(c->what, "argument %d%n", &n, &used) == 1 && c->what[used] == '\0') {
      /* TRANSLATORS: the Nth positional (unnamed) argument of a command line */
      snprintf(buf, cap, _("argument %d"), n);
      return;
    }
    break;
  case GW_CHANGE_ENV:
  case GW_CHANGE_GPU:
    break;
  }
  snprintf(buf, cap, "%s", c->what);
}

/* A value as recorded, or the words for a bare flag. */
static const char *shown_words(const struct gw_change *c, const char *v) {
  /* TRANSLATORS: the value shown for a command-line flag given without a
   * value, as in "--amp (set) -> (absent)" */
  return c->kind == GW_CHANGE_ARG && strcmp(v, "(set)") == 0 ? _("(set)") : v;
}

void gw_change_describe(const struct gw_change *c, char *buf, size_t cap) {
  /* TRANSLATORS: an option or setting one of two runs did not have */
  const char *before = c->before_set ? shown_words(c, c->before) : _("(absent)");
  const char *after = c->after_set ? shown_words(c, c->after) : _("(absent)");
  if (c->kind == GW_CHANGE_ENV) {
    /* TRANSLATORS: an environment variable one of two runs did not set */
    before = c->before_set ? c->before : _("(unset)");
    after = c->after_set ? c->after : _("(unset)");
  }
  char what[160];
  gw_change_what(c, what, sizeof what);
  if (c->kind == GW_CHANGE_ARG || c->kind == GW_CHANGE_ENV)
    /* TRANSLATORS: "--stage 0 -> 1": a setting, its value in the first run
     * and in the second */
    snprintf(buf, cap, _("%s %s -> %s"), what, before, after);
  else
    /* TRANSLATORS: "host: node1 -> node2": what changed, before and after */
    snprintf(buf, cap, _("%s: %s -> %s"), what, before, after);
}

const char *gw_run_setup_option(const struct gw_run_setup *f, const char *name) {
  char want[128];
  normalize_key(name, want, sizeof want);
  struct arg_item *items = gw_xcalloc((size_t)f->argc + 1, sizeof *items);
  char prog[512];
  int n = parse_args(f, items, prog, sizeof prog);
  const char *found = NULL;
  for (int i = 0; i < n && !found; i++) {
    char k[128];
    if (strncmp(items[i].key, "argument ", 9) == 0)
      continue;
    normalize_key(items[i].key, k, sizeof k);
    if (strcmp(k, want) == 0 && !items[i].flag)
      found = items[i].value;
  }
  free(items);
  return found;
}
