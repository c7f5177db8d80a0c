/* `gpuwhy check` runner: gather every source once (NVML, an optional load,
 * the kernel log, the host), then run the rows of each group's table over
 * what was gathered. The rows judge; this file only collects and orders. */
#include "check_internal.h"

#include <errno.h>
#include <gpuwhy/gpuwhy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Time between the two idle snapshots: GPM needs two samples 100 ms apart. */
#define IDLE_GAP_MS 200

/* ---- items ---- */

static struct gw_check_item *new_item(struct check_ctx *ctx) {
  struct gw_check_report *r = ctx->report;
  r->items = gw_xrealloc(r->items, (size_t)(r->nitems + 1) * sizeof *r->items);
  struct gw_check_item *it = &r->items[r->nitems++];
  memset(it, 0, sizeof *it);
  return it;
}

struct gw_check_item *gw_check_add_named(struct check_ctx *ctx, const char *group, const char *id, const char *title,
                                         int gpu, enum gw_check_status status) {
  struct gw_check_item *it = new_item(ctx);
  gw_strlcpy(it->group, group, sizeof it->group);
  if (gpu >= 0)
    snprintf(it->id, sizeof it->id, "gpu%d.%s", gpu, id);
  else
    snprintf(it->id, sizeof it->id, "%s.%s", group, id);
  gw_strlcpy(it->title, title, sizeof it->title);
  it->gpu = gpu;
  it->status = status;
  return it;
}

struct gw_check_item *gw_check_add(struct check_ctx *ctx, const struct check_def *def, const struct check_gpu *gpu,
                                   enum gw_check_status status) {
  return gw_check_add_named(ctx, def->group, def->id, _(def->title), gpu ? (int)gpu->index : -1, status);
}

/* 1 when the UTF-8 character at p is CJK punctuation (U+3000-U+303F: the
 * ideographic comma and full stop, corner brackets) or a full-width form
 * (U+FF01-U+FF60: ，：；（）！？). */
static int cjk_punct_at(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  if (u[0] == 0xE3 && u[1] == 0x80 && u[2] >= 0x80 && u[2] <= 0xBF)
    return 1;
  return u[0] == 0xEF && ((u[1] == 0xBC && u[2] >= 0x81) || (u[1] == 0xBD && u[2] >= 0x80 && u[2] <= 0xA0));
}

/* Sentences join with a space; a piece that starts with punctuation
 * continues the sentence before it. Translations into Chinese join without
 * a space around full-width punctuation ("。" ends a sentence, "（" opens an
 * aside). */
static void append(char *buf, size_t cap, const char *fmt, va_list ap) GW_PRINTF(3, 0);
static void append(char *buf, size_t cap, const char *fmt, va_list ap) {
  char piece[1024];
  vsnprintf(piece, sizeof piece, fmt, ap);
  size_t used = strlen(buf);
  int joins = piece[0] == ',' || piece[0] == ';' || piece[0] == '.' || piece[0] == ':' || piece[0] == ')' ||
              cjk_punct_at(piece) || (used >= 3 && cjk_punct_at(buf + used - 3));
  if (used > 0 && !joins && used + 2 < cap) {
    buf[used++] = ' ';
    buf[used] = '\0';
  }
  if (used + 1 < cap)
    gw_strlcpy(buf + used, piece, cap - used);
}

void gw_check_reason(struct gw_check_item *it, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  append(it->reason, sizeof it->reason, fmt, ap);
  va_end(ap);
}

void gw_check_fix(struct gw_check_item *it, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  append(it->fix, sizeof it->fix, fmt, ap);
  va_end(ap);
}

void gw_check_value(struct gw_check_item *it, const char *name, double value) {
  if (it->nvalues >= GW_CHECK_MAX_VALUES)
    return;
  struct gw_check_value *v = &it->values[it->nvalues++];
  gw_strlcpy(v->name, name, sizeof v->name);
  v->value = value;
}

void gw_check_raise(struct gw_check_item *it, enum gw_check_status status) {
  if (status > it->status)
    it->status = status;
}

/* ---- shared helpers ---- */

int gw_check_metric(const struct gw_gpu_sample *s, enum gw_gpu_metric m, double *v) {
  if (!s || !gw_gpu_valid(s, m))
    return 0;
  *v = s->values[m];
  return 1;
}

const struct gw_gpu_sample *gw_check_gpu_sample(const struct check_gpu *gpu, int *under_load) {
  *under_load = gpu->load_samples > 0;
  return *under_load ? &gpu->load : &gpu->idle;
}

int gw_check_gpu_metric(const struct check_gpu *gpu, enum gw_gpu_metric m, double *v, int *from_load) {
  int loaded = gpu->load_samples > 0 && gw_check_metric(&gpu->load, m, v);
  if (from_load)
    *from_load = loaded;
  return loaded || gw_check_metric(&gpu->idle, m, v);
}

static int hex_field(const char *begin, const char *end, unsigned *out) {
  if (begin == end || end - begin > 8)
    return -1;
  unsigned v = 0;
  for (const char *p = begin; p < end; p++) {
    int d;
    if (*p >= '0' && *p <= '9')
      d = *p - '0';
    else if (*p >= 'a' && *p <= 'f')
      d = *p - 'a' + 10;
    else if (*p >= 'A' && *p <= 'F')
      d = *p - 'A' + 10;
    else
      return -1;
    v = v * 16 + (unsigned)d;
  }
  *out = v;
  return 0;
}

int gw_check_parse_pci(const char *text, unsigned *domain, unsigned *bus, unsigned *device, unsigned *function) {
  if (!text)
    return -1;
  const char *c1 = strchr(text, ':');
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2)
    return -1;
  const char *dot = strchr(c2 + 1, '.');
  const char *end = c2 + 1 + strcspn(c2 + 1, ".: ");
  *function = 0;
  if (hex_field(text, c1, domain) || hex_field(c1 + 1, c2, bus) || hex_field(c2 + 1, dot ? dot : end, device))
    return -1;
  if (dot && hex_field(dot + 1, dot + 1 + strcspn(dot + 1, ": "), function))
    return -1;
  return 0;
}

/* ---- gathering ---- */

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* Overlay the metrics b read onto a. */
static void merge_sample(struct gw_gpu_sample *a, const struct gw_gpu_sample *b) {
  for (int m = 0; m < GW_GPU_NMETRICS; m++)
    if (gw_gpu_valid(b, (enum gw_gpu_metric)m))
      gw_gpu_set(a, (enum gw_gpu_metric)m, b->values[m]);
}

static void gather_gpus(struct check_ctx *ctx) {
  struct gw_err err = {{0}};
  gw_status st = gw_gpu_open(&ctx->nv, ctx->opts->nvml_lib, &err);
  if (st != GW_OK) {
    ctx->nv = NULL;
    gw_strlcpy(ctx->driver_err, err.msg[0] ? err.msg : "no NVIDIA driver", sizeof ctx->driver_err);
    return;
  }
  ctx->have_driver = 1;
  gw_gpu_driver_info(ctx->nv, &ctx->driver);
  ctx->ngpus = gw_gpu_count(ctx->nv);
  ctx->gpus = gw_xcalloc(ctx->ngpus ? ctx->ngpus : 1, sizeof *ctx->gpus);
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    struct check_gpu *gpu = &ctx->gpus[g];
    gpu->index = g;
    gpu->load_avg_power_w = -1;
    gpu->load_tflops = -1;
    gpu->nprocs = -1;
    struct gw_err gerr = {{0}};
    if (gw_gpu_identity(ctx->nv, g, &gpu->info, &gerr) != GW_OK) {
      gpu->lost = 1;
      gw_strlcpy(gpu->lost_why, gerr.msg, sizeof gpu->lost_why);
      continue;
    }
    /* All tiers once: the energy counter and the HW slowdown counters are
     * only read on the rare tier. */
    if (gw_gpu_sample(ctx->nv, g, gw_now_realtime_ns(), GW_GPU_FAST | GW_GPU_SLOW | GW_GPU_RARE, &gpu->idle, NULL) !=
        GW_OK) {
      gpu->lost = 1;
      snprintf(gpu->lost_why, sizeof gpu->lost_why, _(_("the driver lost it while it was being read")));
      continue;
    }
    gpu->idle_ok = 1;
  }
  sleep_ms(IDLE_GAP_MS);
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    struct check_gpu *gpu = &ctx->gpus[g];
    if (gpu->lost)
      continue;
    struct gw_gpu_sample second;
    if (gw_gpu_sample(ctx->nv, g, gw_now_realtime_ns(), GW_GPU_FAST | GW_GPU_SLOW, &second, NULL) != GW_OK) {
      gpu->lost = 1;
      snprintf(gpu->lost_why, sizeof gpu->lost_why, "the driver lost it while it was being read");
      continue;
    }
    merge_sample(&gpu->idle, &second);
    gpu->nprocs = gw_gpu_processes(ctx->nv, g, gw_now_realtime_ns(), gpu->procs, CHECK_MAX_PROCS);
  }
}

/* kmsg timestamps come back as realtime: this offset takes them back to
 * time since boot, which is what people compare with dmesg. */
struct kmsg_collect {
  struct check_ctx *ctx;
  int64_t mono_to_real_ns;
};

static void add_pci(char *list, size_t cap, const char *pci) {
  if (!pci[0])
    return;
  size_t n = strlen(pci);
  for (const char *p = list; (p = strstr(p, pci)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
      return;
  size_t used = strlen(list);
  snprintf(list + used, cap - used, "%s%s", used ? ", " : "", pci);
}

/* The Xid event message starts "PCI <address>: <detail> ..."; split it. */
static void split_xid_message(const char *message, char *pci, size_t pci_cap, const char **detail) {
  pci[0] = '\0';
  *detail = message;
  if (strncmp(message, "PCI ", 4) != 0)
    return;
  const char *colon_space = strstr(message + 4, ": ");
  if (!colon_space)
    return;
  size_t n = (size_t)(colon_space - (message + 4));
  if (n < pci_cap && strncmp(message + 4, "unknown", 7) != 0) {
    memcpy(pci, message + 4, n);
    pci[n] = '\0';
  }
  *detail = colon_space + 2;
}

static void on_kmsg_event(void *cookie, const struct gw_event *ev) {
  struct kmsg_collect *kc = cookie;
  struct check_ctx *ctx = kc->ctx;
  if (strcmp(ev->kind, "xid") == 0) {
    int64_t boot_ms = (ev->t_ns - kc->mono_to_real_ns + 500000) / 1000000;
    struct check_xid_group *grp = NULL;
    for (int i = 0; i < ctx->xid_ngroups; i++)
      if (ctx->xid[i].code == (int)ev->code)
        grp = &ctx->xid[i];
    if (!grp) {
      if (ctx->xid_ngroups >= CHECK_MAX_XID_CODES) {
        ctx->xid_dropped++;
        return;
      }
      grp = &ctx->xid[ctx->xid_ngroups++];
      memset(grp, 0, sizeof *grp);
      grp->code = (int)ev->code;
      grp->first_boot_ms = boot_ms;
    }
    char pci[40];
    const char *detail;
    split_xid_message(ev->message, pci, sizeof pci, &detail);
    if (grp->count == 0) {
      /* Keep the line's own words, not the table text appended after " — ". */
      const char *dash = strstr(detail, " \xE2\x80\x94 Xid ");
      size_t n = dash ? (size_t)(dash - detail) : strlen(detail);
      if (n >= sizeof grp->first_detail)
        n = sizeof grp->first_detail - 1;
      memcpy(grp->first_detail, detail, n);
      grp->first_detail[n] = '\0';
    }
    grp->count++;
    if (boot_ms < grp->first_boot_ms)
      grp->first_boot_ms = boot_ms;
    if (boot_ms > grp->last_boot_ms)
      grp->last_boot_ms = boot_ms;
    add_pci(grp->pcis, sizeof grp->pcis, pci);
  } else if (strcmp(ev->kind, "nvrm") == 0) {
    ctx->nvrm_count++;
    if (!ev->message[0])
      return;
    /* Keep the most recent few with text, newest last. */
    if (ctx->nvrm_shown >= CHECK_MAX_NVRM_LINES)
      memmove(ctx->nvrm_last[0], ctx->nvrm_last[1], sizeof ctx->nvrm_last[0] * (CHECK_MAX_NVRM_LINES - 1));
    int slot = ctx->nvrm_shown < CHECK_MAX_NVRM_LINES ? ctx->nvrm_shown++ : CHECK_MAX_NVRM_LINES - 1;
    gw_strlcpy(ctx->nvrm_last[slot], ev->message, sizeof ctx->nvrm_last[slot]);
  } else if (strcmp(ev->kind, "note") == 0) {
    size_t used = strlen(ctx->kmsg_notes);
    snprintf(ctx->kmsg_notes + used, sizeof ctx->kmsg_notes - used, "%s%s", used ? "; " : "", ev->message);
  }
}

static int compare_xid_group(const void *a, const void *b) {
  const struct check_xid_group *x = a, *y = b;
  return (x->code > y->code) - (x->code < y->code);
}

static void gather_kmsg(struct check_ctx *ctx) {
  struct gw_kmsg *k = NULL;
  struct gw_err err = {{0}};
  if (gw_kmsg_open(&k, ctx->root, 1, &err) != GW_OK) {
    gw_strlcpy(ctx->kmsg_err, err.msg[0] ? err.msg : _("cannot open the kernel log"), sizeof ctx->kmsg_err);
    return;
  }
  struct kmsg_collect kc = {ctx, gw_monotonic_to_realtime_offset_ns()};
  struct gw_event_sink sink = {on_kmsg_event, &kc};
  if (gw_kmsg_poll(k, &sink) < 0 && !ctx->kmsg_notes[0])
    snprintf(ctx->kmsg_notes, sizeof ctx->kmsg_notes, _("reading the kernel log stopped early"));
  gw_kmsg_close(k);
  ctx->kmsg_ok = 1;
  qsort(ctx->xid, (size_t)ctx->xid_ngroups, sizeof ctx->xid[0], compare_xid_group);
}

static void gather_host(struct check_ctx *ctx) {
  struct gw_err err = {{0}};
  if (gw_host_open(&ctx->host, ctx->root, &err) != GW_OK) {
    ctx->host = NULL;
    gw_strlcpy(ctx->host_err, err.msg, sizeof ctx->host_err);
    return;
  }
  struct gw_err notes = {{0}};
  if (gw_host_sample(ctx->host, gw_now_realtime_ns(), 0, &ctx->hs, NULL, &notes) != GW_OK) {
    gw_strlcpy(ctx->host_err, notes.msg, sizeof ctx->host_err);
    return;
  }
  /* Malformed files leave fields unknown; the note names the file and line. */
  gw_strlcpy(ctx->host_err, notes.msg, sizeof ctx->host_err);
  gw_host_info(ctx->host, &ctx->hi);
  ctx->host_ok = 1;
}

/* ---- the run ---- */

static void run_rows(struct check_ctx *ctx, const struct check_def *rows, size_t n, struct check_gpu *gpu) {
  for (size_t i = 0; i < n; i++)
    rows[i].run(ctx, &rows[i], gpu);
}

static void fill_report_facts(struct check_ctx *ctx) {
  struct gw_check_report *r = ctx->report;
  gw_strlcpy(r->driver_version, ctx->driver.driver_version, sizeof r->driver_version);
  r->cuda_driver_version = ctx->driver.cuda_driver_version;
  r->ngpus = (int)ctx->ngpus;
  r->gpus = gw_xcalloc(ctx->ngpus ? ctx->ngpus : 1, sizeof *r->gpus);
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    const struct gw_gpu_info *info = &ctx->gpus[g].info;
    struct gw_check_gpu *o = &r->gpus[g];
    o->index = g;
    gw_strlcpy(o->name, info->name, sizeof o->name);
    gw_strlcpy(o->uuid, info->uuid, sizeof o->uuid);
    gw_strlcpy(o->pci_bus_id, info->pci_bus_id, sizeof o->pci_bus_id);
    o->mem_total_gib = (double)info->mem_total_bytes / (1024.0 * 1024 * 1024);
  }
  r->load_requested = ctx->opts->load;
  r->load_ran = ctx->load_ran;
}

static int check_run(const struct gw_check_opts *opts, struct gw_check_report **out, char *errbuf, size_t errcap);

/* The items are worded as they are judged, so the language is chosen
 * before: English when asked (JSON), for this thread only. */
int gw_check_run(const struct gw_check_opts *opts, struct gw_check_report **out, char *errbuf, size_t errcap) {
  int was_english = gw_i18n_thread_is_english();
  gw_i18n_thread_english(opts->english || was_english);
  int rc = check_run(opts, out, errbuf, errcap);
  gw_i18n_thread_english(was_english);
  return rc;
}

static int check_run(const struct gw_check_opts *opts, struct gw_check_report **out, char *errbuf, size_t errcap) {
  *out = NULL;
  const char *root = opts->root;
  int live = !root || !root[0] || strcmp(root, "/") == 0;
  if (!live) {
    struct stat st;
    if (stat(root, &st) != 0) {
      snprintf(errbuf, errcap, "--root %s: %s", root, gw_strerror(errno));
      return GPUWHY_EXIT_INPUT;
    }
    if (!S_ISDIR(st.st_mode)) {
      snprintf(errbuf, errcap, _("--root %s: not a directory"), root);
      return GPUWHY_EXIT_INPUT;
    }
  }
  struct check_ctx *ctx = gw_xcalloc(1, sizeof *ctx);
  ctx->opts = opts;
  ctx->root = live ? "" : root;
  ctx->live = live;
  ctx->report = gw_xcalloc(1, sizeof *ctx->report);
  ctx->report->load_s = opts->load_s > 0 ? opts->load_s : 3.0;

  gather_gpus(ctx);
  if (opts->load)
    gw_check_gather_load(ctx);
  gather_kmsg(ctx);
  gather_host(ctx);

  run_rows(ctx, gw_check_driver_rows, gw_check_driver_nrows, NULL);
  for (unsigned g = 0; g < ctx->ngpus; g++) {
    struct check_gpu *gpu = &ctx->gpus[g];
    if (gpu->lost) {
      struct gw_check_item *it = gw_check_add_named(ctx, "gpu", "present", _("GPU responds"), (int)g, GW_CHECK_FAIL);
      gw_check_reason(it, _("GPU %u does not answer the driver: %s."), g, gpu->lost_why);
      gw_check_fix(it,
                   _("Look for Xid 79 in the kernel log below; reset the GPU (nvidia-smi -r -i %u) or reboot "
                     "the node, and check its power and seating if it happens again."),
                   g);
      continue;
    }
    run_rows(ctx, gw_check_gpu_rows, gw_check_gpu_nrows, gpu);
  }
  run_rows(ctx, gw_check_kmsg_rows, gw_check_kmsg_nrows, NULL);
  if (ctx->host_ok)
    run_rows(ctx, gw_check_host_rows, gw_check_host_nrows, NULL);
  else
    gw_check_host_unread(ctx);

  fill_report_facts(ctx);
  *out = ctx->report;
  gw_host_close(ctx->host);
  gw_gpu_close(ctx->nv);
  free(ctx->gpus);
  free(ctx);
  return GPUWHY_EXIT_OK;
}

void gw_check_free(struct gw_check_report *r) {
  if (!r)
    return;
  free(r->items);
  free(r->gpus);
  free(r);
}

int gw_check_exit_status(const struct gw_check_report *r) {
  enum gw_check_status worst = GW_CHECK_PASS;
  for (int i = 0; r && i < r->nitems; i++)
    if (r->items[i].status > worst)
      worst = r->items[i].status;
  /* A failing or warning item is a finding (1), as baseline check's
   * regression is: 2 stays the usage error's status alone (issue 35). */
  return worst >= GW_CHECK_WARN ? GPUWHY_EXIT_FINDINGS : GPUWHY_EXIT_OK;
}

const char *gw_check_status_name(enum gw_check_status s) {
  switch (s) {
  case GW_CHECK_PASS:
    return "pass";
  case GW_CHECK_NOTE:
    return "note";
  case GW_CHECK_WARN:
    return "warn";
  case GW_CHECK_FAIL:
    return "fail";
  }
  return "?";
}
