#include "render/step_facts.h"

#include <math.h>

#include "core/i18n.h"
#include "analysis/step_breakdown.h"
#include "core/activity.h"
#include "core/json_write.h"

/* Steps carry a pid only when the Python hook recorded them. */
static int have_processes(const struct gw_diagnosis *dx) {
  return dx->steps.nprocs > 0 && dx->steps.procs[0].pid >= 0;
}

/* A number in a column of width characters after a space, "-" when unknown. */
static void num(FILE *out, double v, int decimals, int width) {
  if (isnan(v))
    fprintf(out, " %*s", width, "-");
  else
    fprintf(out, " %*.*f", width, decimals, v);
}

void gw_step_facts_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset) {
  if (!have_processes(dx))
    return;
  fprintf(out, _("%sSteps%s (measured inside the program by gpuwhy's Python hook)\n"), bold, reset);
  /* rank, pid, p50, p90 and batch are the words every tool shows; left as they are */
  fprintf(out, "  %-5s %8s %7s %9s %10s %10s %10s %6s %10s\n", "rank", "pid", _("steps"), _("steps/s"), _("samples/s"),
          "p50 ms", "p90 ms", "batch", _("data wait"));
  for (int i = 0; i < dx->steps.nprocs; i++) {
    const struct gw_step_process *p = &dx->steps.procs[i];
    char rank[24]; /* any 64-bit value with its sign */
    if (p->rank >= 0)
      snprintf(rank, sizeof rank, "%lld", (long long)p->rank);
    else
      snprintf(rank, sizeof rank, "-");
    fprintf(out, "  %-5s %8lld %7zu", rank, (long long)p->pid, p->nsteps);
    num(out, p->steps_per_s, 2, 9);
    num(out, p->samples_per_s, 1, 10);
    num(out, p->step_p50_s * 1e3, 2, 10);
    num(out, p->step_p90_s * 1e3, 2, 10);
    num(out, p->batch_size, 0, 6);
    if (isnan(p->data_wait_share))
      fprintf(out, " %10s\n", "-");
    else
      fprintf(out, " %9.1f%%\n", p->data_wait_share * 100);
  }
  /* the rank shown first stands for the run: its warm-up is what the ledger left out */
  const struct gw_step_process *p0 = &dx->steps.procs[0];
  if (!isnan(p0->warmup_s))
    fprintf(out,
            _("  each process's first step (warm-up, %.2f s for the first above: CUDA set-up, autotuning, "
              "compilation, workers starting) is left out of these figures and of the ledger\n"),
            p0->warmup_s);
  /* The batch size comes from a DataLoader batch or a module call (the
   * hook's only sources); a loop with neither has none, and none is made up. */
  for (int i = 0; i < dx->steps.nprocs; i++)
    if (isnan(dx->steps.procs[i].batch_size)) {
      fprintf(out,
              _("  batch size unknown for pid %lld: its steps took no DataLoader batch and called no nn.Module, so "
                "samples/s is not known; steps/s is\n"),
              (long long)dx->steps.procs[i].pid);
      break;
    }
  fprintf(out, "\n");
}

static void jnum(FILE *out, const char *key, double v, const char *sep) {
  fprintf(out, "\"%s\": ", key);
  gw_json_write_number(out, v);
  fputs(sep, out);
}

void gw_step_facts_json(const struct gw_diagnosis *dx, FILE *out) {
  fputs("  \"steps_by_process\": [", out);
  for (int i = 0; have_processes(dx) && i < dx->steps.nprocs; i++) {
    const struct gw_step_process *p = &dx->steps.procs[i];
    fprintf(out, "%s\n    {\"pid\": %lld, \"rank\": ", i ? "," : "", (long long)p->pid);
    if (p->rank >= 0)
      fprintf(out, "%lld, ", (long long)p->rank);
    else
      fputs("null, ", out);
    fprintf(out, "\"steps\": %zu, ", p->nsteps);
    jnum(out, "steps_per_s", p->steps_per_s, ", ");
    jnum(out, "samples_per_s", p->samples_per_s, ", ");
    jnum(out, "step_p50_s", p->step_p50_s, ", ");
    jnum(out, "step_p90_s", p->step_p90_s, ", ");
    jnum(out, "batch_size", p->batch_size, ", ");
    jnum(out, "samples_per_step", p->samples_per_step, ", ");
    jnum(out, "data_wait_share", p->data_wait_share, ", ");
    jnum(out, "warmup_step_s", p->warmup_s, "}");
  }
  fputs(have_processes(dx) ? "\n  ],\n" : "],\n", out);
}

/* Short names of the training thread's activities in the split. */
static const char *activity_label(int a) {
  static const char *const L[GW_PYACT_COUNT] = {
      [GW_PYACT_OTHER] = N_("other"),
      [GW_PYACT_DATA_WAIT] = N_("data wait"),
      [GW_PYACT_DATA_INLINE] = N_("batch made inline"),
      [GW_PYACT_H2D] = N_("h2d copy"),
      [GW_PYACT_SYNC] = N_("sync"),
      [GW_PYACT_CHECKPOINT] = N_("checkpoint"),
      [GW_PYACT_EVAL] = N_("eval"),
      [GW_PYACT_LOGGING] = N_("logging"),
      [GW_PYACT_COMPILE] = N_("compile"),
      [GW_PYACT_OPTIMIZER] = N_("optimizer"),
      [GW_PYACT_FORWARD_BACKWARD] = N_("forward/backward"),
      [GW_PYACT_COLLECTIVE] = N_("collective"),
      [GW_PYACT_IDLE] = N_("idle"),
  };
  return a >= 0 && a < GW_PYACT_COUNT ? L[a] : L[GW_PYACT_OTHER];
}

/* A duration in ms into buf, "-" when unknown. */
static const char *ms(char *buf, size_t size, double s) {
  if (isnan(s))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, "%.2f ms", s * 1e3);
  return buf;
}

/* The host activities of a split into buf, largest first, those of at
 * least 1% of the step; "" when none was sampled. */
static void host_list(char *buf, size_t size, const struct gw_step_split *k) {
  int done[GW_PYACT_COUNT] = {0};
  size_t at = 0;
  buf[0] = 0;
  for (int n = 0; n < GW_PYACT_COUNT && at < size; n++) {
    int best = -1;
    for (int a = 0; a < GW_PYACT_COUNT; a++)
      if (!done[a] && !isnan(k->host_s[a]) && k->host_s[a] >= 0.01 * k->wall_s &&
          (best < 0 || k->host_s[a] > k->host_s[best]))
        best = a;
    if (best < 0)
      break;
    done[best] = 1;
    char t[32];
    int w = snprintf(buf + at, size - at, "%s%s %s", at ? ", " : "", _(activity_label(best)),
                     ms(t, sizeof t, k->host_s[best]));
    at += w > 0 ? (size_t)w : 0;
  }
}

void gw_step_breakdown_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset) {
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  if (!b->found)
    return;
  const struct gw_step_split *k = &b->kinds[GW_STEP_KIND_TYPICAL];
  if (b->pid >= 0)
    fprintf(out, _("%sSteps decomposed%s (%zu steady steps of pid %lld)\n"), bold, reset, b->nsteady,
            (long long)b->pid);
  else
    fprintf(out, _("%sSteps decomposed%s (%zu steady steps)\n"), bold, reset, b->nsteady);
  char dw[32], sy[32], busy[32], fill[64] = "", host[512];
  if (!isnan(k->sm_fill_pct))
    snprintf(fill, sizeof fill, _(" (SM fill %.0f%%)"), k->sm_fill_pct);
  fprintf(out, _("  median step %.2f ms; the mean of %zu typical steps: data wait %s, sync %s, GPU busy %s%s\n"),
          b->step_median_s * 1e3, k->nsteps, ms(dw, sizeof dw, k->data_wait_s), ms(sy, sizeof sy, k->sync_s),
          ms(busy, sizeof busy, k->gpu_busy_s), fill);
  host_list(host, sizeof host, k);
  if (host[0])
    fprintf(out, _("  host: %s\n"), host);
  else
    fputs(_("  host: not sampled (no Python stack samples in these steps)\n"), out);
  if (!k->host_per_step || !k->gpu_per_step) {
    if (b->py_hz > 0 && !b->gpu_from_trace)
      fprintf(out,
              _("  per step: not measurable in this recording (a step spans fewer than %d periods of the %.0f Hz "
                "stack sampler or of the %.0f ms GPU samples); the split above sums the samples of all of them\n"),
              GW_STEP_MIN_SAMPLE_PERIODS, b->py_hz, b->gpu_period_s * 1e3);
    else
      fprintf(out,
              _("  per step: not measurable in this recording (a step spans fewer than %d periods of the samplers); "
                "the split above sums the samples of all of them\n"),
              GW_STEP_MIN_SAMPLE_PERIODS);
  }
  if (b->recurring && b->activity >= 0) {
    char extra[32], frame[128] = "";
    if (b->frame_text[0])
      snprintf(frame, sizeof frame, " (%s)", b->frame_text);
    fprintf(out,
            _("  slow steps recur every %d steps (about every %.2f s), %d times, %.2f s above the median step in "
              "all; in them: %s, +%s a step%s\n"),
            b->period_steps, b->period_s, b->count, b->extra_s, _(activity_label(b->activity)),
            ms(extra, sizeof extra, b->activity_extra_s), frame);
  } else if (b->recurring) {
    fprintf(
        out,
        _("  slow steps recur every %d steps (about every %.2f s), %d times, %.2f s above the median step in all\n"),
        b->period_steps, b->period_s, b->count, b->extra_s);
  }
  if (b->recurring && b->fetch_rhythm)
    fprintf(out,
            _("  each slow step costs more than the %d steps between two of them: the rhythm of batches "
              "fetched in parallel (a loader's round), not of scheduled work\n"),
            b->period_steps);
  if (b->queue_paced) {
    fprintf(out,
            _("  slow steps recur every %d steps, %d times, but the GPU stayed busy through %.0f%% of them: work "
              "queued ahead kept it fed, no stall"),
            b->period_steps, b->count, 100 * b->queue_busy_frac);
    if (b->activity >= 0)
      fprintf(out, _("; in them: %s%s%s%s"), _(activity_label(b->activity)), b->frame_text[0] ? " (" : "",
              b->frame_text, b->frame_text[0] ? ")" : "");
    fputs("\n", out);
  } else if (!b->recurring) {
    fprintf(out, _("  no slow steps recur at a fixed spacing (%zu above %.2f ms)\n"), b->nslow,
            b->slow_threshold_s * 1e3);
  }
  if (b->shape_known && b->nshapes >= 2)
    fprintf(out,
            b->follows_shape ? _("  the step time follows the input shape: %d shapes explain %.0f%% of its variance\n")
                             : _("  %d input shapes explain %.0f%% of the step time's variance\n"),
            b->nshapes, isnan(b->shape_explained) ? 0 : b->shape_explained * 100);
  fputs("\n", out);
}

static void split_json(FILE *out, const struct gw_step_split *k) {
  fprintf(out, "{\"steps\": %zu, ", k->nsteps);
  jnum(out, "wall_s", k->wall_s, ", ");
  jnum(out, "data_wait_s", k->data_wait_s, ", ");
  jnum(out, "sync_s", k->sync_s, ", ");
  jnum(out, "gpu_busy_s", k->gpu_busy_s, ", ");
  jnum(out, "sm_fill_pct", k->sm_fill_pct, ", ");
  fprintf(out, "\"samples\": %zu, \"per_step_measurable\": %s, \"host_s\": {", k->nsamples,
          k->host_per_step && k->gpu_per_step ? "true" : "false");
  for (int a = 0; a < GW_PYACT_COUNT; a++)
    jnum(out, gw_py_activity_name(a), k->host_s[a], a + 1 < GW_PYACT_COUNT ? ", " : "}}");
}

/* "activity": what grew most in the slow steps, "frame": its top user frame; null where unknown. */
static void activity_frame_json(FILE *out, const struct gw_step_breakdown *b) {
  fputs("\"activity\": ", out);
  if (b->activity >= 0)
    fprintf(out, "\"%s\", ", gw_py_activity_name(b->activity));
  else
    fputs("null, ", out);
  fputs("\"frame\": ", out);
  if (b->frame_text[0])
    gw_json_write_string(out, b->frame_text);
  else
    fputs("null", out);
}

void gw_step_breakdown_json(const struct gw_diagnosis *dx, FILE *out) {
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  if (!b->found)
    return;
  fputs("  \"steps_breakdown\": {", out);
  if (b->pid >= 0)
    fprintf(out, "\"pid\": %lld, ", (long long)b->pid);
  else
    fputs("\"pid\": null, ", out);
  fprintf(out, "\"steady_steps\": %zu, \"first_steady_step\": %zu, ", b->nsteady, b->first_steady);
  jnum(out, "step_median_s", b->step_median_s, ", ");
  jnum(out, "step_mad_s", b->step_mad_s, ", ");
  jnum(out, "slow_threshold_s", b->slow_threshold_s, ",\n    ");
  fputs("\"typical\": ", out);
  split_json(out, &b->kinds[GW_STEP_KIND_TYPICAL]);
  fputs(",\n    \"slow_recurring\": ", out);
  if (b->recurring) {
    fprintf(out, "{\"period_steps\": %d, \"count\": %d, ", b->period_steps, b->count);
    jnum(out, "period_s", b->period_s, ", ");
    jnum(out, "period_spread_steps", b->period_spread_steps, ", ");
    jnum(out, "extra_s", b->extra_s, ", ");
    jnum(out, "activity_extra_s", b->activity_extra_s, ", ");
    activity_frame_json(out, b);
    fprintf(out, ", \"fetch_rhythm\": %s", b->fetch_rhythm ? "true" : "false");
    fputs(", \"split\": ", out);
    split_json(out, &b->kinds[GW_STEP_KIND_SLOW]);
    fputs("}", out);
  } else {
    fputs("null", out);
  }
  fputs(",\n    \"queue_paced\": ", out);
  if (b->queue_paced) {
    fprintf(out, "{\"period_steps\": %d, \"count\": %d, ", b->period_steps, b->count);
    jnum(out, "gpu_busy_share", b->queue_busy_frac, ", ");
    activity_frame_json(out, b);
    fputs("}", out);
  } else {
    fputs("null", out);
  }
  fprintf(out, ",\n    \"slow_steps\": %zu, \"shape_known\": %s, \"shapes\": %d, ", b->nslow,
          b->shape_known ? "true" : "false", b->nshapes);
  jnum(out, "shape_explained", b->shape_explained, ", ");
  jnum(out, "shape_correlation", b->shape_corr, ", ");
  jnum(out, "step_cv", b->step_cv, ", ");
  fprintf(out, "\"follows_shape\": %s},\n", b->follows_shape ? "true" : "false");
}
