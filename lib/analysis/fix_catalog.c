#include "analysis/fix_catalog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/finding_rank.h"
#include "analysis/gpu_peaks.h"
#include "analysis/mfu.h"

/* Cheapest first: the order runs are made in and the table lists. What each
 * changes, numerics included, is worded by render/fix_catalog_text.c. */
const struct gw_fix_kind gw_fix_kinds[] = {
    {"workers", GW_FIX_COUNT, "input_pipeline; data_wait, data_inline", 0, 1, ""},
    {"persistent_workers", GW_FIX_FLAG, "input_pipeline; data_wait", 0, 0, ""},
    {"prefetch_factor", GW_FIX_COUNT, "input_pipeline; data_wait", 0, 0, ""},
    {"pin_memory", GW_FIX_FLAG, "input_pipeline; h2d", 0, 1, ""},
    /* a copy is made non-blocking only from pinned memory: its run pins the loader's batches too */
    {"non_blocking", GW_FIX_FLAG, "input_pipeline; h2d", 0, 1, "pin_memory"},
    {"cudnn_benchmark", GW_FIX_FLAG, "", 0, 0, ""},
    {"tf32", GW_FIX_FLAG, "productive; float32 matmuls", 0, 1, ""},
    {"batch_size", GW_FIX_BATCH, "small_batch; underfilled", 1, 1, ""},
};
const int gw_nfix_kinds = (int)(sizeof gw_fix_kinds / sizeof gw_fix_kinds[0]);

/* Workers beyond this rarely help (each holds a copy of the dataset object
 * and competes for the same memory bandwidth) and start slowly. */
#define WORKERS_MAX 16
/* Workers busy at or above this share of the run were saturated: the loader
 * asked of them more than they could give. */
#define WORKERS_SATURATED_FRAC 0.5
/* Doubling the batch doubles activations, not weights or optimizer state: a
 * peak below this share of the GPU's memory leaves room for x2. */
#define BATCH_X2_MEM_FRAC 0.45
/* The prefetch_factor tried when none is given: torch's default is 2; four
 * batches ahead absorb a slow batch in four workers' time. */
#define PREFETCH_DEFAULT 4

const struct gw_fix_kind *gw_fix_kind_find(const char *name) {
  for (int i = 0; i < gw_nfix_kinds; i++)
    if (strcmp(gw_fix_kinds[i].name, name) == 0)
      return &gw_fix_kinds[i];
  return NULL;
}

static int parse_count(const char *s, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < 1 || v > 100000)
    return -1;
  *out = v;
  return 0;
}

enum gw_fix_parse_status gw_fix_parse(const char *arg, struct gw_fix_plan *out) {
  memset(out, 0, sizeof *out);
  out->point = out->bound = NAN;
  char name[64];
  const char *eq = strchr(arg, '=');
  size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
  if (n == 0 || n >= sizeof name)
    return GW_FIX_PARSE_NO_NAME;
  memcpy(name, arg, n);
  name[n] = 0;
  out->kind = gw_fix_kind_find(name);
  if (!out->kind)
    return GW_FIX_PARSE_UNKNOWN;
  const char *v = eq ? eq + 1 : NULL;
  switch (out->kind->value) {
  case GW_FIX_FLAG:
    if (v)
      return GW_FIX_PARSE_TAKES_NO_VALUE;
    break;
  case GW_FIX_COUNT:
    if (v && parse_count(v, &out->count))
      return GW_FIX_PARSE_BAD_COUNT;
    out->given_value = v != NULL;
    break;
  case GW_FIX_BATCH:
    if (v && (v[0] == 'x' ? parse_count(v + 1, &out->count) || out->count < 2 : parse_count(v, &out->count)))
      return GW_FIX_PARSE_BAD_BATCH;
    out->times = v ? v[0] == 'x' : 1;
    if (!v)
      out->count = 2;
    out->given_value = v != NULL;
    break;
  }
  snprintf(out->text, sizeof out->text, "%s", arg);
  return GW_FIX_PARSE_OK;
}

/* The share of the first GPU's working span the training thread spent in
 * these causes (analysis/idle_attribution.h); 0 where not attributed. */
static double attr_share(const struct gw_diagnosis *dx, const int *causes, int n) {
  if (!dx->attr || dx->ngpus < 1 || dx->attr[0].source == GW_ATTR_NONE)
    return 0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += dx->attr[0].rows[causes[i]].share_of_wall;
  return s;
}

static double speedup_of(double share) {
  return share >= 1 ? INFINITY : 1.0 / (1.0 - share);
}

static void derive_workers(const struct gw_diagnosis *dx, struct gw_fix_plan *p) {
  int cores = dx->host.physical_cores > 0 ? dx->host.physical_cores : dx->host.logical_cpus;
  double measured = dx->host.workers_med;
  int saturated =
      isfinite(dx->host.workers_saturated_frac) && dx->host.workers_saturated_frac >= WORKERS_SATURATED_FRAC;
  long n;
  int w = 0;
  if (cores > 1) {
    /* one core stays with the training thread, which launches the kernels */
    n = cores - 1;
    w = snprintf(p->derivation, sizeof p->derivation, "%d cores - 1 for the training thread", cores);
  } else if (cores == 1) {
    n = 1;
    w = snprintf(p->derivation, sizeof p->derivation, "1 core: 1");
  } else {
    /* a common laptop or small cloud instance's count, less the training thread */
    n = 4;
    w = snprintf(p->derivation, sizeof p->derivation, "core count unknown: 4");
  }
  if (n > WORKERS_MAX) {
    n = WORKERS_MAX;
    w += snprintf(p->derivation + w, sizeof p->derivation - (size_t)w, ", at most %d", WORKERS_MAX);
  }
  if (saturated && isfinite(measured) && measured > 0 && n < 2 * (long)lround(measured)) {
    n = 2 * (long)lround(measured);
    snprintf(p->derivation + w, sizeof p->derivation - (size_t)w, "; the %.0f workers measured were saturated: 2x",
             measured);
  } else if (isfinite(measured))
    snprintf(p->derivation + w, sizeof p->derivation - (size_t)w, "; %.0f workers measured", measured);
  p->count = n < 1 ? 1 : n;
  snprintf(p->text, sizeof p->text, "workers=%ld", p->count);
}

static void predict_input(const struct gw_diagnosis *dx, struct gw_fix_plan *p) {
  const struct gw_finding *f = gw_finding_of_class(dx, "input_pipeline");
  static const int data_causes[] = {GW_PYACT_DATA_WAIT, GW_PYACT_DATA_INLINE};
  double attr = attr_share(dx, data_causes, 2);
  if (f && f->share_of_active > 0) {
    p->addressed_share = f->share_of_active;
    p->bound = f->speedup_max;
    p->reason = GW_FIXR_INPUT_FINDING;
  } else if (attr > 0) {
    p->addressed_share = attr;
    p->bound = speedup_of(attr);
    p->reason = GW_FIXR_INPUT_ATTR;
  }
}

/* TF32 speeds up the float32 matmuls only: the productive time in them can
 * shrink by the dense TF32/FP32 peak ratio, nothing else. */
static void predict_tf32(const struct gw_diagnosis *dx, struct gw_fix_plan *p) {
  p->reason = GW_FIXR_TF32_UNKNOWN;
  if (!dx->mfu || dx->ngpus < 1 || !dx->mfu[0].measured || !dx->mfu[0].model || dx->active_ns <= 0)
    return;
  const struct gw_gpu_peak *peak = gw_gpu_peak_for(dx->mfu[0].model);
  if (!peak || !(peak->tflops[GW_PEAK_FP32] > 0) || !(peak->tflops[GW_PEAK_TF32] > 0))
    return;
  /* the hook's dtype split: "FP32" alone, or "... + FP32 8%" */
  const char *label = dx->mfu[0].dtype_label;
  double fp32_frac = 0;
  if (strncmp(label, "FP32", 4) == 0 && !strchr(label, '+'))
    fp32_frac = 1;
  else if (strstr(label, "FP32 "))
    fp32_frac = atof(strstr(label, "FP32 ") + 5) / 100.0;
  else if (strncmp(label, "FP32 ", 5) == 0)
    fp32_frac = atof(label + 5) / 100.0;
  double productive = dx->total.row_ns[GW_ROW_PRODUCTIVE] / dx->active_ns;
  double ratio = peak->tflops[GW_PEAK_TF32] / peak->tflops[GW_PEAK_FP32];
  p->reason = GW_FIXR_TF32;
  p->addressed_share = productive * fp32_frac * (1 - 1 / ratio);
  p->bound = speedup_of(productive * (1 - 1 / ratio));
}

void gw_fix_predict(const struct gw_diagnosis *dx, struct gw_fix_plan *p) {
  p->addressed_share = 0;
  p->point = p->bound = NAN;
  p->reason = GW_FIXR_NOT_FOUND;
  if (!dx)
    return;
  const char *name = p->kind->name;
  if (strcmp(name, "workers") == 0 && !p->given_value)
    derive_workers(dx, p);
  if (strcmp(name, "prefetch_factor") == 0 && !p->given_value) {
    p->count = PREFETCH_DEFAULT;
    snprintf(p->text, sizeof p->text, "prefetch_factor=%d", PREFETCH_DEFAULT);
    snprintf(p->derivation, sizeof p->derivation, "%d batches ahead per worker (torch's default is 2)",
             PREFETCH_DEFAULT);
  }
  if (strcmp(name, "batch_size") == 0 && !p->given_value) {
    snprintf(p->text, sizeof p->text, "batch_size=x2");
    double frac = dx->ngpus > 0 ? dx->profiles[0].mem_used_frac : NAN;
    if (isfinite(frac))
      snprintf(p->derivation, sizeof p->derivation, "x2: peak memory %.0f%% of the GPU's", frac * 100);
    else
      snprintf(p->derivation, sizeof p->derivation, "x2: peak memory unknown");
  }
  if (strcmp(name, "workers") == 0 || strcmp(name, "persistent_workers") == 0 || strcmp(name, "prefetch_factor") == 0)
    predict_input(dx, p);
  else if (strcmp(name, "pin_memory") == 0 || strcmp(name, "non_blocking") == 0) {
    static const int h2d[] = {GW_PYACT_H2D};
    double s = attr_share(dx, h2d, 1);
    if (s > 0) {
      /* pinned, non-blocking copies overlap the rest of the step but are
       * not free: the step takes at least the longer of the two. Only a
       * faster copy (pinned against pageable bandwidth) could go beyond
       * that, and at most to the copy's removal (the bound). On an H200 a
       * loader's 64 MiB batches gained nothing from pinning (x0.99), as
       * its pageable copies ran near the link's speed already. */
      p->addressed_share = s > 0.5 ? 1 - s : s;
      p->bound = speedup_of(s);
      p->reason = GW_FIXR_H2D;
    }
  } else if (strcmp(name, "batch_size") == 0) {
    const struct gw_finding *f = gw_finding_of_class(dx, "small_batch");
    if (f && f->share_of_active > 0) {
      p->addressed_share = f->share_of_active;
      p->reason = GW_FIXR_SMALL_BATCH;
    }
    /* samples/s can at most grow by the batch's factor (each step no slower) */
    if (p->times)
      p->bound = (double)p->count;
    else if (dx->mfu && dx->ngpus > 0 && dx->mfu[0].batch_size > 0)
      p->bound = (double)p->count / (double)dx->mfu[0].batch_size;
    else
      p->reason = f ? p->reason : GW_FIXR_BATCH_UNKNOWN;
  } else if (strcmp(name, "tf32") == 0)
    predict_tf32(dx, p);
  else if (strcmp(name, "cudnn_benchmark") == 0)
    p->reason = GW_FIXR_NOT_MEASURABLE;
  p->point = speedup_of(p->addressed_share);
  if (isfinite(p->bound) && p->point > p->bound)
    p->point = p->bound;
  if (!isfinite(p->bound) && p->reason == GW_FIXR_NOT_FOUND)
    p->bound = 1.0;
}

int gw_fix_applicable(const struct gw_diagnosis *dx, struct gw_fix_plan *out, int cap) {
  int n = 0;
  for (int i = 0; i < gw_nfix_kinds && n < cap; i++) {
    const struct gw_fix_kind *k = &gw_fix_kinds[i];
    if (!k->auto_pick)
      continue;
    struct gw_fix_plan p;
    if (gw_fix_parse(k->name, &p) != GW_FIX_PARSE_OK)
      continue;
    gw_fix_predict(dx, &p);
    if (p.point < 1.0 + GW_FIX_NO_CHANGE)
      continue;
    /* a larger batch needs the memory for its activations */
    if (strcmp(k->name, "batch_size") == 0 && !(dx->ngpus > 0 && dx->profiles[0].mem_used_frac < BATCH_X2_MEM_FRAC))
      continue;
    /* as many workers as measured already: nothing to try */
    if (strcmp(k->name, "workers") == 0 && isfinite(dx->host.workers_med) && p.count <= lround(dx->host.workers_med))
      continue;
    out[n++] = p;
  }
  return n;
}
