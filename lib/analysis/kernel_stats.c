#include "kernel_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sm_fill.h"
#include "analysis/stats.h"
#include "core/util.h"
#include "store/store_iter.h"
#include "store/store_model.h"

int gw_kstats_bucket(int64_t dur_ns) {
  /* bucket b >= 1 starts at 2^b us */
  int b = 0;
  for (int64_t edge_ns = 2000; b < GW_KSTATS_NBUCKETS - 1 && dur_ns >= edge_ns; edge_ns *= 2)
    b++;
  return b;
}

double gw_kstats_bucket_lo_us(int b) {
  return b <= 0 ? 0 : ldexp(1, b);
}

const char *gw_kstep_source_id(enum gw_kstep_source s) {
  switch (s) {
  case GW_KSTEPS_TABLE:
    return "step_table";
  case GW_KSTEPS_SEQUENCE:
    return "kernel_sequence";
  default:
    return "none";
  }
}

/* Work cap of the period search (comparisons): about 0.1 s even for a
 * 450k-kernel trace searched up to 20000. */
#define PERIOD_WORK_MAX (1u << 24)
/* A multiple of the period repeats as well as the period itself: the
 * smallest P this close to the best share wins. */
#define PERIOD_SHARE_TOLERANCE 0.02
/* Sampled scores may fall short of the exact share by this much. */
#define PERIOD_SAMPLE_SLACK 0.05
#define PERIOD_EXACT_CHECKS 16

static double exact_share(const int32_t *names, size_t n, size_t p) {
  size_t same = 0;
  for (size_t i = 0; i + p < n; i++)
    same += names[i] == names[i + p];
  return (double)same / (double)(n - p);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

/* One period of a step loop launches more than one kind of kernel: a run of
 * one name repeated is no step. */
static int two_names(const int32_t *names, size_t p) {
  for (size_t i = 1; i < p; i++)
    if (names[i] != names[0])
      return 1;
  return 0;
}

size_t gw_kstats_find_period(const int32_t *names, size_t n, size_t max_p, double min_share, double *share_out) {
  if (share_out)
    *share_out = 0;
  size_t pmax = n / 3 < max_p ? n / 3 : max_p;
  if (pmax < 2)
    return 0;
  double *score = gw_xcalloc(pmax + 1, sizeof *score);
  if ((double)pmax * (double)n <= PERIOD_WORK_MAX) {
    for (size_t p = 1; p <= pmax; p++)
      score[p] = exact_share(names, n, p);
  } else {
    /* The same random positions for every P, sorted for locality; random
     * rather than evenly spaced, so that a stride sharing a factor with the
     * period cannot bias the score. */
    size_t npos = PERIOD_WORK_MAX / pmax, range = n - pmax;
    size_t *pos = gw_xcalloc(npos, sizeof *pos);
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (size_t k = 0; k < npos; k++) {
      s = s * 6364136223846793005u + 1442695040888963407u;
      pos[k] = (size_t)((s >> 33) % range);
    }
    qsort(pos, npos, sizeof *pos, cmp_size);
    for (size_t p = 1; p <= pmax; p++) {
      size_t same = 0;
      for (size_t k = 0; k < npos; k++)
        same += names[pos[k]] == names[pos[k] + p];
      score[p] = (double)same / (double)npos;
    }
    free(pos);
  }
  double best = 0;
  for (size_t p = 2; p <= pmax; p++)
    if (score[p] > best)
      best = score[p];
  size_t found = 0;
  int checks = 0;
  for (size_t p = 2; p <= pmax && checks < PERIOD_EXACT_CHECKS; p++) {
    if (score[p] < best - PERIOD_SHARE_TOLERANCE || score[p] < min_share - PERIOD_SAMPLE_SLACK)
      continue;
    checks++;
    double share = exact_share(names, n, p);
    if (share >= min_share && two_names(names, p)) {
      found = p;
      if (share_out)
        *share_out = share;
      break;
    }
  }
  free(score);
  return found;
}

void gw_kstats_shape_variation(const int32_t *names, const int32_t (*grid)[3], const size_t *bounds, size_t nsteps,
                               int64_t *pairs, int64_t *varying, int64_t *pairs_by_name, int64_t *varying_by_name,
                               size_t nnames) {
  for (size_t s = 0; s + 1 < nsteps; s++) {
    size_t a = bounds[s], b = bounds[s + 1];
    size_t len_a = bounds[s + 1] - a, len_b = bounds[s + 2] - b;
    size_t len = len_a < len_b ? len_a : len_b;
    for (size_t j = 0; j < len; j++) {
      int32_t nm = names[a + j];
      if (nm != names[b + j])
        continue;
      int differs = memcmp(grid[a + j], grid[b + j], sizeof grid[0]) != 0;
      (*pairs)++;
      *varying += differs;
      if (nm >= 0 && (size_t)nm < nnames) {
        if (pairs_by_name)
          pairs_by_name[nm]++;
        if (varying_by_name)
          varying_by_name[nm] += differs;
      }
    }
  }
}

int gw_kstats_per_parameter(const char *name) {
  return name && strstr(name, "multi_tensor_apply") != NULL;
}

int gw_kstats_nccl_name(const char *name) {
  /* ncclKernel_..., ncclDevKernel_... (NCCL 2.19 and newer) */
  return name && strstr(name, "nccl") != NULL;
}

/* What a kernel's name says of how its time scales with the batch. */
enum { KIND_COMPUTE, KIND_PER_PARAMETER, KIND_NCCL };
static char name_kind(const char *name) {
  return gw_kstats_nccl_name(name) ? KIND_NCCL : gw_kstats_per_parameter(name) ? KIND_PER_PARAMETER : KIND_COMPUTE;
}

/* Kernel time and its per-parameter part, NCCL kernels left out. */
static void per_param_time(const struct gw_kernel_seq *k, struct gw_kernel_stats *out) {
  out->per_param_share = NAN;
  if (!k->name_text || k->nnames == 0)
    return;
  char *kind = gw_xcalloc(k->nnames + 1, 1);
  for (size_t nm = 0; nm < k->nnames; nm++)
    kind[nm] = name_kind(k->name_text[nm]);
  double all_ns = 0, per_param_ns = 0;
  for (size_t i = 0; i < k->n; i++) {
    int c = k->name[i] >= 0 && (size_t)k->name[i] < k->nnames ? kind[k->name[i]] : KIND_COMPUTE;
    double d = (double)(k->end_ns[i] - k->start_ns[i]);
    if (c == KIND_NCCL)
      continue;
    all_ns += d;
    if (c == KIND_PER_PARAMETER)
      per_param_ns += d;
  }
  free(kind);
  out->compute_kernel_s = all_ns / 1e9;
  if (all_ns > 0)
    out->per_param_share = per_param_ns / all_ns;
}

void gw_kstats_short_name(const char *name, char *dst, size_t cap) {
  static const char anon[] = "(anonymous namespace)";
  if (!cap)
    return;
  if (strncmp(name, "void ", 5) == 0)
    name += 5;
  size_t o = 0;
  for (const char *p = name; *p && o + 1 < cap;) {
    if (strncmp(p, anon, sizeof anon - 1) == 0) {
      for (size_t k = 0; k < sizeof anon - 1 && o + 1 < cap; k++)
        dst[o++] = p[k];
      p += sizeof anon - 1;
      continue;
    }
    /* template arguments and parameters make names hundreds of characters long */
    if (*p == '<' || *p == '(')
      break;
    dst[o++] = *p++;
  }
  dst[o] = '\0';
  if (o == 0) /* a name that starts with '(' or '<': keep it as written */
    gw_strlcpy(dst, name, cap);
}

/* Steps gathered over the whole GPU: kernel index boundaries per group of
 * back-to-back steps (a window, or the run), with their durations. */
struct step_acc {
  size_t n, cap;
  double *kernels, *dur_s;
  double *periods;
  size_t nperiods;
  double period_share_sum;
  int64_t pairs, varying;
  int64_t *pairs_by_name, *varying_by_name;
};

static void acc_step(struct step_acc *a, double kernels, double dur_s) {
  if (a->n == a->cap) {
    a->cap = a->cap ? a->cap * 2 : 64;
    a->kernels = gw_xrealloc(a->kernels, a->cap * sizeof *a->kernels);
    a->dur_s = gw_xrealloc(a->dur_s, a->cap * sizeof *a->dur_s);
  }
  a->kernels[a->n] = kernels;
  a->dur_s[a->n] = dur_s;
  a->n++;
}

/* Steps from the repeating name sequence of kernels [i0, i1). */
static void sequence_steps(const struct gw_kernel_seq *k, size_t i0, size_t i1, struct step_acc *a) {
  size_t n = i1 - i0;
  double share;
  size_t p = gw_kstats_find_period(k->name + i0, n, GW_KSTATS_PERIOD_MAX, GW_KSTATS_PERIOD_MIN_SHARE, &share);
  if (!p)
    return;
  a->periods = gw_xrealloc(a->periods, (a->nperiods + 1) * sizeof *a->periods);
  a->periods[a->nperiods++] = (double)p;
  a->period_share_sum += share;
  size_t nsteps = n / p;
  size_t *bounds = gw_xcalloc(nsteps + 1, sizeof *bounds);
  for (size_t s = 0; s <= nsteps; s++)
    bounds[s] = s * p;
  /* the phase is the first kernel's: step s runs from its first kernel's start to the next step's */
  for (size_t s = 0; s < nsteps; s++)
    acc_step(a, (double)p,
             s + 1 < nsteps ? (double)(k->start_ns[i0 + (s + 1) * p] - k->start_ns[i0 + s * p]) / 1e9 : NAN);
  gw_kstats_shape_variation(k->name + i0, k->grid + i0, bounds, nsteps, &a->pairs, &a->varying, a->pairs_by_name,
                            a->varying_by_name, k->nnames);
  free(bounds);
}

/* Steps of the step table: kernels that start between a step's start and
 * the next step's (the GPU runs behind the host, so a step's kernels may
 * start after its range ends). A step without kernels is outside the trace;
 * in a sampled trace only steps inside one window count. */
static void table_steps(const struct gw_kernel_seq *k, const struct gw_time_range *windows, size_t nwindows,
                        const struct gw_time_range *steps, size_t nsteps, struct step_acc *a) {
  size_t *bounds = gw_xcalloc(nsteps + 1, sizeof *bounds);
  size_t run = 0; /* steps in the current run of counted, back-to-back steps */
  for (size_t s = 0; s < nsteps; s++) {
    int64_t t0 = steps[s].start_ns, t1 = s + 1 < nsteps ? steps[s + 1].start_ns : steps[s].end_ns;
    int inside = !windows;
    for (size_t w = 0; w < nwindows && !inside; w++)
      inside = windows[w].start_ns <= t0 && t1 <= windows[w].end_ns;
    size_t i0 = gw_first_at_or_after(k->start_ns, k->n, t0), i1 = gw_first_at_or_after(k->start_ns, k->n, t1);
    if (!inside || i1 <= i0 || t1 <= t0) {
      if (run > 1)
        gw_kstats_shape_variation(k->name, k->grid, bounds, run, &a->pairs, &a->varying, a->pairs_by_name,
                                  a->varying_by_name, k->nnames);
      run = 0;
      continue;
    }
    if (run == 0)
      bounds[0] = i0;
    bounds[run + 1] = i1;
    run++;
    acc_step(a, (double)(i1 - i0), (double)(steps[s].end_ns - steps[s].start_ns) / 1e9);
  }
  if (run > 1)
    gw_kstats_shape_variation(k->name, k->grid, bounds, run, &a->pairs, &a->varying, a->pairs_by_name,
                              a->varying_by_name, k->nnames);
  free(bounds);
}

static void top_varying(const struct gw_kernel_seq *k, const struct step_acc *a, struct gw_kernel_stats *out) {
  for (size_t nm = 0; nm < k->nnames; nm++) {
    if (a->varying_by_name[nm] == 0)
      continue;
    /* insertion into the short sorted list */
    int at = out->nvarying;
    while (at > 0 && out->top[at - 1].varying < a->varying_by_name[nm])
      at--;
    if (at >= GW_KSTATS_TOP_VARYING)
      continue;
    int last = out->nvarying < GW_KSTATS_TOP_VARYING ? out->nvarying : GW_KSTATS_TOP_VARYING - 1;
    memmove(&out->top[at + 1], &out->top[at], (size_t)(last - at) * sizeof out->top[0]);
    struct gw_kernel_varying *v = &out->top[at];
    v->pairs = a->pairs_by_name[nm];
    v->varying = a->varying_by_name[nm];
    gw_kstats_short_name(k->name_text && k->name_text[nm] ? k->name_text[nm] : "?", v->name, sizeof v->name);
    if (out->nvarying < GW_KSTATS_TOP_VARYING)
      out->nvarying++;
  }
}

void gw_kernel_stats_compute(const struct gw_kernel_seq *k, const struct gw_time_range *windows, size_t nwindows,
                             const struct gw_time_range *steps, size_t nsteps, struct gw_kernel_stats *out) {
  memset(out, 0, sizeof *out);
  out->doubling_gain = NAN; /* gw_kernel_stats_read fills it from the launch configurations */
  if (k->n == 0)
    return;
  out->nkernels = (int64_t)k->n;
  out->sampled = windows != NULL;
  double *dur_us = gw_xcalloc(k->n, sizeof *dur_us);
  int64_t t_last_ns = k->end_ns[0];
  for (size_t i = 0; i < k->n; i++) {
    int64_t d = k->end_ns[i] - k->start_ns[i];
    dur_us[i] = (double)d / 1e3;
    out->hist[gw_kstats_bucket(d)]++;
    if (k->end_ns[i] > t_last_ns)
      t_last_ns = k->end_ns[i];
  }
  out->dur_mean_us = gw_stats_mean(dur_us, k->n);
  out->dur_median_us = gw_stats_median(dur_us, k->n);
  out->dur_p90_us = gw_stats_quantile(dur_us, k->n, 0.9);
  free(dur_us);
  per_param_time(k, out);

  if (windows) {
    int64_t traced_ns = 0;
    for (size_t w = 0; w < nwindows; w++) {
      traced_ns += windows[w].end_ns - windows[w].start_ns;
      size_t i0 = gw_first_at_or_after(k->start_ns, k->n, windows[w].start_ns),
             i1 = gw_first_at_or_after(k->start_ns, k->n, windows[w].end_ns);
      out->nwindows += i1 > i0;
    }
    out->traced_s = (double)traced_ns / 1e9;
  } else {
    out->traced_s = (double)(t_last_ns - k->start_ns[0]) / 1e9;
  }
  out->launches_per_s = out->traced_s > 0 ? (double)k->n / out->traced_s : NAN;

  struct step_acc a = {0};
  a.pairs_by_name = gw_xcalloc(k->nnames + 1, sizeof *a.pairs_by_name);
  a.varying_by_name = gw_xcalloc(k->nnames + 1, sizeof *a.varying_by_name);
  if (steps && nsteps) {
    table_steps(k, windows, nwindows, steps, nsteps, &a);
    if (a.n)
      out->step_source = GW_KSTEPS_TABLE;
  }
  if (!a.n) {
    if (windows) {
      for (size_t w = 0; w < nwindows; w++) {
        size_t i0 = gw_first_at_or_after(k->start_ns, k->n, windows[w].start_ns),
               i1 = gw_first_at_or_after(k->start_ns, k->n, windows[w].end_ns);
        if (i1 > i0)
          sequence_steps(k, i0, i1, &a);
      }
    } else {
      sequence_steps(k, 0, k->n, &a);
    }
    if (a.n) {
      out->step_source = GW_KSTEPS_SEQUENCE;
      out->period_kernels = (int64_t)llround(gw_stats_median(a.periods, a.nperiods));
      out->period_share = a.period_share_sum / (double)a.nperiods;
    }
  }
  out->nsteps = (int64_t)a.n;
  out->kernels_per_step_mean = out->kernels_per_step_median = out->step_median_s = NAN;
  if (a.n) {
    out->kernels_per_step_mean = gw_stats_mean(a.kernels, a.n);
    out->kernels_per_step_median = gw_stats_median(a.kernels, a.n);
    out->step_median_s = gw_stats_median(a.dur_s, a.n); /* NAN entries (a last step's unknown end) are skipped */
  }
  out->shape_pairs = a.pairs;
  out->shape_varying = a.varying;
  top_varying(k, &a, out);
  free(a.kernels);
  free(a.dur_s);
  free(a.periods);
  free(a.pairs_by_name);
  free(a.varying_by_name);
}

/* Kernel names: the trace_name table keys them by (pid, id); equal texts of
 * different processes get one dense id, so sequences compare by name. */
struct name_key {
  int64_t pid, id;
  int32_t dense;
};

static int cmp_key(const void *a, const void *b) {
  const struct name_key *x = a, *y = b;
  int c = gw_cmp_i64(x->pid, y->pid);
  return c ? c : gw_cmp_i64(x->id, y->id);
}

struct name_table {
  size_t nkeys, nnames;
  struct name_key *keys;
  char **text;
};

static void load_names(struct gw_store *st, struct name_table *t) {
  struct gw_store_iter *it = gw_store_iter_names(st);
  if (!it)
    return;
  size_t cap = 0;
  const char *prev = NULL;
  struct gw_store_name_row row;
  while (gw_store_next_name(it, &row)) {
    const char *name = row.text;
    if (t->nkeys == cap) {
      cap = cap ? cap * 2 : 256;
      t->keys = gw_xrealloc(t->keys, cap * sizeof *t->keys);
      t->text = gw_xrealloc(t->text, cap * sizeof *t->text);
    }
    if (!prev || strcmp(prev, name) != 0)
      t->text[t->nnames++] = gw_xstrdup(name);
    prev = t->text[t->nnames - 1];
    t->keys[t->nkeys++] = (struct name_key){row.pid, row.id, (int32_t)(t->nnames - 1)};
  }
  gw_store_iter_close(it);
  if (t->nkeys)
    qsort(t->keys, t->nkeys, sizeof *t->keys, cmp_key);
}

static int32_t dense_name(const struct name_table *t, int64_t pid, int64_t id) {
  struct name_key key = {pid, id, 0};
  const struct name_key *k = t->nkeys ? bsearch(&key, t->keys, t->nkeys, sizeof key, cmp_key) : NULL;
  return k ? k->dense : -1;
}

/* Same bound as the loader (store/store_load.c): a time outside 0 .. 4e18 is damage. */
#define TIME_MAX_NS 4000000000000000000LL

struct kernel_rows {
  size_t n, cap;
  int64_t *start_ns, *end_ns;
  int32_t *name;
  int32_t (*grid)[3];
};

/* A doubled batch's kernel time beside today's (gw_kstats_doubling_time),
 * summed as the kernels load. */
struct doubling_sum {
  const struct gw_sm_limits *lim; /* NULL: the GPU's limits are unknown */
  double now_ns, doubled_ns;
};

static void load_gpu(struct gw_store_iter *it, const struct name_table *names, const char *kind, struct kernel_rows *r,
                     struct doubling_sum *dbl) {
  r->n = 0;
  struct gw_store_kernel_row row;
  while (gw_store_next_kernel(it, &row)) {
    int64_t a = row.start_ns, b = row.end_ns;
    if (a < 0 || a > TIME_MAX_NS || b < 0 || b > TIME_MAX_NS)
      continue;
    if (r->n == r->cap) {
      r->cap = r->cap ? r->cap * 2 : 1024;
      r->start_ns = gw_xrealloc(r->start_ns, r->cap * sizeof *r->start_ns);
      r->end_ns = gw_xrealloc(r->end_ns, r->cap * sizeof *r->end_ns);
      r->name = gw_xrealloc(r->name, r->cap * sizeof *r->name);
      r->grid = gw_xrealloc(r->grid, r->cap * sizeof *r->grid);
    }
    int32_t nm = row.name_id < 0 ? -1 : dense_name(names, row.pid, row.name_id);
    r->start_ns[r->n] = a;
    r->end_ns[r->n] = b < a ? a : b;
    r->name[r->n] = nm;
    for (int d = 0; d < 3; d++)
      r->grid[r->n][d] = row.grid[d];
    r->n++;
    /* per-parameter kernels keep their time, NCCL kernels are left out
     * (communication is not the batch's fill), the rest go by their waves */
    int64_t blocks = (int64_t)row.grid[0] * row.grid[1] * row.grid[2];
    int c = nm >= 0 ? kind[nm] : KIND_COMPUTE;
    if (!dbl->lim || b <= a || blocks <= 0 || row.threads_per_block <= 0 || c == KIND_NCCL)
      continue;
    double d = (double)(b - a);
    dbl->now_ns += d;
    if (c == KIND_PER_PARAMETER) {
      dbl->doubled_ns += d;
      continue;
    }
    struct gw_launch_config cfg = {.blocks = blocks,
                                   .threads_per_block = row.threads_per_block,
                                   .regs_per_thread = row.regs_per_thread,
                                   .shmem_bytes = row.shmem_bytes};
    struct gw_occupancy o = gw_occupancy_of(dbl->lim, &cfg);
    dbl->doubled_ns += gw_kstats_doubling_time(d, o.blocks_per_sm > 0 ? o.waves : 0);
  }
}

size_t gw_kstats_gpu_windows(const struct gw_recording *rec, const struct gw_gpu_series *g, struct gw_time_range *win) {
  /* a sampled trace: the windows of the process that ran on this GPU (all when unknown) */
  size_t nwin = 0;
  for (size_t w = 0; w < rec->nwindows; w++)
    if (rec->windows[w].pid == g->trace_pid)
      win[nwin++] = (struct gw_time_range){rec->windows[w].start_ns, rec->windows[w].end_ns};
  for (size_t w = 0; w < rec->nwindows && nwin == 0; w++)
    win[w] = (struct gw_time_range){rec->windows[w].start_ns, rec->windows[w].end_ns};
  if (nwin == 0)
    nwin = rec->nwindows;
  return nwin;
}

double gw_kstats_doubling_time(double duration_ns, double waves) {
  if (!(waves > 0))
    return 2 * duration_ns;
  return duration_ns * ceil(2 * waves) / ceil(waves);
}

void gw_kernel_stats_read(struct gw_store *st, struct gw_recording *rec) {
  for (int i = 0; i < rec->ngpus; i++)
    rec->gpus[i].kstats = gw_xcalloc(1, sizeof *rec->gpus[i].kstats);
  if (!gw_store_has_table(st, "kernel"))
    return;
  struct name_table names = {0};
  load_names(st, &names);
  char *kind = gw_xcalloc(names.nnames + 1, 1);
  for (size_t nm = 0; nm < names.nnames; nm++)
    kind[nm] = name_kind(names.text[nm]);
  struct kernel_rows r = {0};
  struct gw_time_range *win = gw_xcalloc(rec->nwindows + 1, sizeof *win);
  struct gw_time_range *steps = gw_xcalloc(rec->nsteps + 1, sizeof *steps);
  size_t nsteps = 0;
  for (size_t i = 0; i < rec->nsteps; i++)
    if (rec->steps[i].end_ns > rec->steps[i].start_ns)
      steps[nsteps++] = (struct gw_time_range){rec->steps[i].start_ns, rec->steps[i].end_ns};
  for (int i = 0; i < rec->ngpus; i++) {
    struct gw_gpu_series *g = &rec->gpus[i];
    struct gw_sm_limits lim;
    struct doubling_sum dbl = {gw_sm_limits_read(st, g->gpu, &lim) ? &lim : NULL, 0, 0};
    struct gw_store_iter *it = gw_store_iter_kernels(st, g->gpu);
    load_gpu(it, &names, kind, &r, &dbl);
    gw_store_iter_close(it);
    size_t nwin = gw_kstats_gpu_windows(rec, g, win);
    struct gw_kernel_seq seq = {
        r.n, r.start_ns, r.end_ns, r.name, (const int32_t(*)[3])r.grid, names.nnames, (const char *const *)names.text};
    gw_kernel_stats_compute(&seq, rec->timeline_sampled ? win : NULL, nwin, nsteps ? steps : NULL, nsteps, g->kstats);
    /* twice the samples in doubled_ns instead of now_ns */
    if (dbl.now_ns > 0 && dbl.doubled_ns > 0)
      g->kstats->doubling_gain = 2 * dbl.now_ns / dbl.doubled_ns - 1;
  }
  free(kind);
  free(win);
  free(steps);
  free(r.start_ns);
  free(r.end_ns);
  free(r.name);
  free(r.grid);
  for (size_t n = 0; n < names.nnames; n++)
    free(names.text[n]);
  free(names.text);
  free(names.keys);
}
