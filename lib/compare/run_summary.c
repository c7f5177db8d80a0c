/* Summaries of runs for compare, baseline and sweep (see run_summary.h). */
#include "compare/run_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ledger.h"
#include "analysis/mfu.h"
#include "analysis/series.h"
#include "analysis/stats.h"
#include "analysis/step_process.h"
#include "analysis/steps.h"
#include "core/i18n.h"
#include "core/json_path.h"
#include "store/store.h"
#include "store/store_setup.h"

/* A ground-truth file is a few MB at most; anything larger is not one. */
#define TRUTH_MAX_BYTES (64L << 20)

const char *gw_step_source_id(enum gw_step_source s) {
  switch (s) {
  case GW_STEPS_TABLE:
    return "step_table";
  case GW_STEPS_LOG:
    return "program_log";
  case GW_STEPS_ACTIVITY:
    return "activity";
  case GW_STEPS_NONE:
    break;
  }
  return "none";
}

void gw_step_source_describe(const struct gw_run_summary *s, int translate, char *buf, size_t cap) {
  switch (s->step_source) {
  case GW_STEPS_TABLE:
    snprintf(buf, cap, "%s", translate ? _("the recording's step table") : "the recording's step table");
    break;
  case GW_STEPS_LOG:
    /* TRANSLATORS: %s is the step log's file name, NAME.truth.json */
    snprintf(buf, cap, translate ? _("the program's step log (%s)") : "the program's step log (%s)", s->step_log);
    break;
  case GW_STEPS_ACTIVITY:
    snprintf(buf, cap, "%s",
             translate ? _("the rhythm of SM activity (estimated steps)")
                       : "the rhythm of SM activity (estimated steps)");
    break;
  case GW_STEPS_NONE:
    snprintf(buf, cap, "%s", translate ? _("no step times") : "no step times");
    break;
  }
}

struct mark {
  int64_t start_ns, end_ns;
};

static int by_start(const void *x, const void *y) {
  const struct mark *a = x, *b = y;
  return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

size_t gw_step_times_from_marks(int64_t *start_ns, int64_t *end_ns, size_t n, double *out_s) {
  struct mark *m = gw_xcalloc(n + 1, sizeof *m);
  for (size_t i = 0; i < n; i++)
    m[i] = (struct mark){start_ns[i], end_ns[i]};
  qsort(m, n, sizeof *m, by_start);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    start_ns[i] = m[i].start_ns;
    end_ns[i] = m[i].end_ns;
    int64_t d = m[i].end_ns - m[i].start_ns;
    if (i + 1 < n && m[i + 1].start_ns >= m[i].end_ns)
      d = m[i + 1].start_ns - m[i].start_ns;
    if (d > 0)
      out_s[k++] = (double)d / 1e9;
  }
  free(m);
  return k;
}

double gw_run_throughput(const struct gw_run_summary *s, int per_sample) {
  return per_sample ? s->samples_per_s : s->steps_per_s;
}

void gw_run_summary_step_stats(struct gw_run_summary *s) {
  s->step_median_s = s->step_p90_s = s->step_p90_over_p50 = s->step_cv = s->steps_per_s = NAN;
  if (s->nsteps >= 1) {
    s->step_median_s = gw_stats_median(s->step_s, s->nsteps);
    s->step_p90_s = gw_stats_quantile(s->step_s, s->nsteps, 0.9);
    s->step_p90_over_p50 = gw_stats_p90_over_p50(s->step_s, s->nsteps);
    s->step_cv = s->nsteps >= 2 ? gw_stats_cv(s->step_s, s->nsteps) : NAN;
    double mean = gw_stats_mean(s->step_s, s->nsteps);
    s->steps_per_s = mean > 0 ? 1 / mean : NAN;
  }
  if (!isnan(s->steps_per_s) && !isnan(s->samples_per_step)) {
    s->samples_per_s = s->steps_per_s * s->samples_per_step;
    s->samples_per_s_reported = 0;
  }
}

/* ---- the ground-truth file beside a recording ---- */

/* NAME.db -> NAME.truth.json; 0 when it exists. */
static int truth_path(const char *path, char *out, size_t cap) {
  char stem[1024];
  gw_strlcpy(stem, path, sizeof stem);
  size_t len = strlen(stem);
  if (len > 3 && strcmp(stem + len - 3, ".db") == 0)
    stem[len - 3] = '\0';
  int w = snprintf(out, cap, "%s.truth.json", stem);
  if (w < 0 || (size_t)w >= cap)
    return -1;
  return access(out, F_OK) == 0 ? 0 : -1;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Training steps of the step log ("kind" absent or "train"): other entries
 * (evaluation, checkpoints) fall into the time of the step they follow. */
static gw_status read_log_steps(const struct gw_json_doc *doc, struct gw_run_summary *s, int64_t *w0, int64_t *w1,
                                struct gw_err *err) {
  struct gw_json_value steps = gw_json_get(gw_json_root(doc), "steps");
  if (steps.type == GW_JSON_ABSENT)
    return GW_OK;
  if (steps.type != GW_JSON_ARRAY) {
    gw_err_set(err, "%s: field \"steps\" is not an array", doc->path);
    return GW_EINPUT;
  }
  struct gw_json_value *m = NULL;
  size_t nm = gw_json_members(steps, &m);
  size_t cap = 256, n = 0;
  int64_t *start = gw_xcalloc(cap, sizeof *start), *end = gw_xcalloc(cap, sizeof *end);
  gw_status rc = GW_OK;
  for (size_t idx = 0; idx < nm; idx++) {
    int64_t t0 = 0, t1 = 0;
    char kind[16];
    struct gw_json_value k = gw_json_get(m[idx], "kind");
    int train = k.type == GW_JSON_ABSENT || k.type == GW_JSON_NULL ||
                (gw_json_string(k, "", kind, sizeof kind) == 0 && strcmp(kind, "train") == 0);
    /* ns since 1970, before 2096: step times are differences of these and must not overflow */
    if (gw_json_i64(m[idx], "start_ns", &t0) != 0 || gw_json_i64(m[idx], "end_ns", &t1) != 0 || t1 < t0 || t0 < 0 ||
        t1 > 4000000000000000000LL) {
      gw_err_set(err, "%s: steps[%zu]: start_ns and end_ns must be integers (ns since 1970) with end_ns >= start_ns",
                 doc->path, idx);
      rc = GW_EINPUT;
      break;
    }
    if (!train)
      continue;
    if (n == cap) {
      cap *= 2;
      start = gw_xrealloc(start, cap * sizeof *start);
      end = gw_xrealloc(end, cap * sizeof *end);
    }
    start[n] = t0;
    end[n] = t1;
    n++;
  }
  free(m);
  if (rc == GW_OK && n > 0) {
    s->step_s = gw_xcalloc(n, sizeof *s->step_s);
    s->nsteps = gw_step_times_from_marks(start, end, n, s->step_s);
    s->step_source = GW_STEPS_LOG;
    gw_strlcpy(s->step_log, base_name(doc->path), sizeof s->step_log);
    *w0 = start[0];
    *w1 = end[n - 1];
  }
  free(start);
  free(end);
  return rc;
}

static gw_status read_truth(const char *tpath, struct gw_run_summary *s, int want_steps, int64_t *w0, int64_t *w1,
                            struct gw_err *err) {
  struct gw_json_doc doc;
  gw_status rc = gw_json_doc_load(tpath, TRUTH_MAX_BYTES, &doc, err);
  if (rc)
    return rc;
  struct gw_json_value root = gw_json_root(&doc);
  double sps = gw_json_number(root, "samples_per_step");
  if (!isnan(sps)) {
    if (!(sps > 0)) {
      gw_err_set(err, "%s: samples_per_step must be positive, got %g", tpath, sps);
      gw_json_doc_free(&doc);
      return GW_EINPUT;
    }
    s->samples_per_step = sps;
    gw_strlcpy(s->samples_per_step_from, base_name(tpath), sizeof s->samples_per_step_from);
  }
  double rate = gw_json_number(root, "samples_per_s");
  if (!isnan(rate) && rate > 0) {
    s->samples_per_s = rate;
    s->samples_per_s_reported = 1;
  }
  char change[1024];
  if (gw_json_string(root, "change", change, sizeof change) == 0 && change[0]) {
    gw_strlcpy(s->setup.change, change, sizeof s->setup.change);
    gw_strlcpy(s->setup.change_from, base_name(tpath), sizeof s->setup.change_from);
  }
  if (want_steps)
    rc = read_log_steps(&doc, s, w0, w1, err);
  gw_json_doc_free(&doc);
  return rc;
}

/* ---- measurements from the recording ---- */

/* The steps of one process (the lowest rank: see step_process.h); with the
 * Python hook's samples, samples per step when nothing else gave it. */
static void steps_from_table(const struct gw_recording *rec, struct gw_run_summary *s, int64_t *w0, int64_t *w1) {
  int64_t pid = gw_step_process_pick(rec);
  size_t warmup = gw_step_warmup_index(rec, pid); /* one-time costs, not the loop's rate */
  size_t n = 0, nsamples = 0;
  int64_t *start = gw_xcalloc(rec->nsteps, sizeof *start), *end = gw_xcalloc(rec->nsteps, sizeof *end);
  double *samples = gw_xcalloc(rec->nsteps, sizeof *samples);
  for (size_t i = 0; i < rec->nsteps; i++) {
    if (rec->steps[i].pid != pid || i == warmup)
      continue;
    start[n] = rec->steps[i].start_ns;
    end[n] = rec->steps[i].end_ns;
    if (rec->steps[i].samples > 0)
      samples[nsamples++] = (double)rec->steps[i].samples;
    n++;
  }
  if (n > 0 && nsamples == n && isnan(s->samples_per_step)) {
    s->samples_per_step = gw_stats_median(samples, nsamples);
    gw_strlcpy(s->samples_per_step_from, "the recording's step table", sizeof s->samples_per_step_from);
  }
  free(samples);
  s->step_s = gw_xcalloc(n, sizeof *s->step_s);
  s->nsteps = gw_step_times_from_marks(start, end, n, s->step_s);
  s->step_source = GW_STEPS_TABLE;
  *w0 = start[0];
  *w1 = end[n - 1];
  free(start);
  free(end);
}

/* The same estimate the report makes: rises of GPU 0's activity over its
 * working span (a swing of 10 points separates a rhythm from noise). */
static void steps_from_activity(const struct gw_recording *rec, struct gw_run_summary *s) {
  if (rec->ngpus == 0)
    return;
  const struct gw_gpu_series *g = &rec->gpus[0];
  size_t first, last;
  if (g->n == 0 || !gw_working_span(g, &first, &last))
    return;
  double *act = gw_xcalloc(g->n, sizeof *act);
  int from_util = 0;
  for (size_t i = 0; i < g->n; i++)
    act[i] = gw_tick_activity_pct(g, i, &from_util);
  double *d = gw_xcalloc(g->n, sizeof *d);
  size_t n = gw_steps_from_activity(g->t_ns + first, act + first, last - first + 1, 10.0, d, g->n);
  free(act);
  if (n >= 2) {
    s->step_s = d;
    s->nsteps = n;
    s->step_source = GW_STEPS_ACTIVITY;
  } else {
    free(d);
  }
}

static void gpu_means(const struct gw_recording *rec, int64_t w0, int64_t w1, struct gw_run_summary *s) {
  double sm = 0, util = 0, power = 0;
  size_t nsm = 0, nutil = 0, npower = 0;
  int64_t span0 = 0, span1 = 0;
  s->mem_used_peak_bytes = s->mem_total_bytes = NAN;
  for (int gi = 0; gi < rec->ngpus; gi++) {
    const struct gw_gpu_series *g = &rec->gpus[gi];
    size_t first = 0, last = 0;
    int64_t a = w0, b = w1;
    if (!a || !b) {
      if (g->n == 0 || !gw_working_span(g, &first, &last))
        continue;
      a = g->t_ns[first];
      b = g->t_ns[last];
    }
    if (!span0 || a < span0)
      span0 = a;
    if (b > span1)
      span1 = b;
    for (size_t i = 0; i < g->n; i++) {
      if (g->t_ns[i] < a || g->t_ns[i] > b)
        continue;
      int from_util = 0;
      double act = gw_tick_activity_pct(g, i, &from_util);
      if (!isnan(act)) {
        sm += act;
        nsm++;
        s->sm_from_util |= from_util;
      }
      double u = gw_column_at(g->m[GW_M_util_gpu_pct], i), p = gw_column_at(g->m[GW_M_power_mw], i);
      double mu = gw_column_at(g->m[GW_M_mem_used_bytes], i);
      if (!isnan(u)) {
        util += u;
        nutil++;
      }
      if (!isnan(p)) {
        power += p / 1000.0;
        npower++;
      }
      if (!isnan(mu) && (isnan(s->mem_used_peak_bytes) || mu > s->mem_used_peak_bytes)) {
        s->mem_used_peak_bytes = mu;
        s->mem_total_bytes = g->mem_total_bytes;
      }
    }
  }
  s->sm_mean_pct = nsm ? sm / (double)nsm : NAN;
  s->util_mean_pct = nutil ? util / (double)nutil : NAN;
  s->power_mean_w = npower ? power / (double)npower : NAN;
  s->window_s = span1 > span0 ? (double)(span1 - span0) / 1e9 : NAN;
  s->has_gpu_data = nsm + nutil + npower > 0;
}

/* The job's MFU: achieved FLOP/s of every counted GPU against the sum of
 * their peaks, so GPUs of different models weigh by what they could do. */
static void copy_mfu(const struct gw_diagnosis *dx, struct gw_run_summary *s) {
  double achieved = 0, achieved_with_peak = 0, peak = 0;
  int counted = 0, with_peak = 0;
  for (int gi = 0; dx->mfu && gi < dx->ngpus; gi++) {
    const struct gw_mfu *m = &dx->mfu[gi];
    if (!m->measured || !(m->achieved_tflops > 0))
      continue;
    achieved += m->achieved_tflops;
    counted++;
    if (m->peak_tflops > 0) {
      achieved_with_peak += m->achieved_tflops;
      peak += m->peak_tflops;
      with_peak++;
    }
  }
  s->mfu_gpus = counted;
  s->achieved_tflops = counted ? achieved : NAN;
  s->mfu_pct = with_peak ? 100 * achieved_with_peak / peak : NAN;
}

static void copy_diagnosis(const struct gw_diagnosis *dx, struct gw_run_summary *s) {
  s->ledger_estimated = dx->estimated;
  s->active_s = dx->active_ns / 1e9;
  for (int r = 0; r < GW_LEDGER_NROWS; r++)
    s->ledger_share[r] =
        (r != GW_ROW_STARTUP && dx->total.measured[r] && dx->active_ns > 0) ? dx->total.row_ns[r] / dx->active_ns : NAN;
  s->lost_share = dx->active_ns > 0 ? dx->lost_ns / dx->active_ns : NAN;
  gw_strlcpy(s->verdict, dx->verdict ? dx->verdict : "none", sizeof s->verdict);
  s->nfindings = dx->nfindings;
  copy_mfu(dx, s);
  for (int i = 0; i < dx->nfindings; i++) {
    gw_strlcpy(s->findings[i].class_id, dx->findings[i].class_id, sizeof s->findings[i].class_id);
    s->findings[i].share_of_lost = dx->findings[i].share_of_lost;
    s->findings[i].confidence = dx->findings[i].confidence;
  }
}

/* Labels in the meta table: samples_per_step (anyone may set it), and the
 * sweep parameter and value that gpuwhy sweep writes. */
static void read_meta(struct gw_store *store, struct gw_run_summary *s) {
  char v[1024];
  double d;
  if (gw_store_read_meta(store, "samples_per_step", v, sizeof v) == 0 && gw_parse_double(v, &d) == 0 && d > 0) {
    s->samples_per_step = d;
    gw_strlcpy(s->samples_per_step_from, "meta samples_per_step", sizeof s->samples_per_step_from);
  }
  if (gw_store_read_meta(store, "sweep_param", v, sizeof v) == 0)
    gw_strlcpy(s->sweep_param, v, sizeof s->sweep_param);
  if (gw_store_read_meta(store, "sweep_value", v, sizeof v) == 0)
    gw_strlcpy(s->sweep_value, v, sizeof s->sweep_value);
}

void gw_run_summary_init(struct gw_run_summary *s, const char *path) {
  memset(s, 0, sizeof *s);
  gw_strlcpy(s->path, path, sizeof s->path);
  gw_strlcpy(s->name, base_name(path), sizeof s->name);
  char *dot = strrchr(s->name, '.');
  if (dot && dot != s->name)
    *dot = '\0';
  s->samples_per_step = s->samples_per_s = NAN;
  s->step_median_s = s->step_p90_s = s->step_p90_over_p50 = s->step_cv = s->steps_per_s = NAN;
  s->sm_mean_pct = s->util_mean_pct = s->power_mean_w = s->window_s = NAN;
  s->mem_used_peak_bytes = s->mem_total_bytes = s->lost_share = NAN;
  s->mfu_pct = s->achieved_tflops = NAN;
  for (int r = 0; r < GW_LEDGER_NROWS; r++)
    s->ledger_share[r] = NAN;
  gw_strlcpy(s->verdict, "no_data", sizeof s->verdict);
}

gw_status gw_run_summary_begin(const struct gw_recording *rec, const char *path, struct gw_run_summary *s,
                               struct gw_err *err) {
  gw_run_summary_init(s, path);
  if (!rec->store) {
    gw_err_set(err, "%s: the run's setup is read from a recording loaded from its file", path);
    return GW_EINPUT;
  }
  gw_status rc = gw_run_setup_load(rec->store, path, &s->setup, err);
  if (rc == GW_OK)
    read_meta(rec->store, s);
  return rc;
}

gw_status gw_run_summary_from_recording(const struct gw_recording *rec, const char *path, struct gw_run_summary *s,
                                        struct gw_err *err) {
  gw_status rc;
  int64_t w0 = 0, w1 = 0;
  if (rec->nsteps > 0)
    steps_from_table(rec, s, &w0, &w1);
  char tpath[1100];
  if (truth_path(path, tpath, sizeof tpath) == 0 &&
      (rc = read_truth(tpath, s, s->step_source == GW_STEPS_NONE, &w0, &w1, err)))
    return rc;
  if (s->step_source == GW_STEPS_NONE)
    steps_from_activity(rec, s);
  gw_run_summary_step_stats(s);
  gpu_means(rec, w0, w1, s);

  struct gw_diagnosis *dx = NULL;
  if ((rc = gw_diagnose(rec, &dx, err)))
    return rc;
  copy_diagnosis(dx, s);
  gw_diagnosis_free(dx);
  return GW_OK;
}

void gw_run_summary_free(struct gw_run_summary *s) {
  free(s->step_s);
  s->step_s = NULL;
  s->nsteps = 0;
  gw_run_setup_free(&s->setup);
}
