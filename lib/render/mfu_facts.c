#include "render/mfu_facts.h"

#include <math.h>

#include "analysis/mfu.h"
#include "core/i18n.h"
#include "core/json_write.h"

int gw_mfu_any_measured(const struct gw_diagnosis *dx) {
  for (int i = 0; dx->mfu && i < dx->ngpus; i++)
    if (dx->mfu[i].measured)
      return 1;
  return 0;
}

static const char *badput_title(enum gw_badput b) {
  switch (b) {
  case GW_BADPUT_STARTUP_COMPILE:
    return _("start-up and compilation");
  case GW_BADPUT_DATA_WAIT:
    return _("data wait");
  case GW_BADPUT_CHECKPOINT:
    return _("checkpoint");
  case GW_BADPUT_EVALUATION:
    return _("evaluation");
  case GW_BADPUT_SYNC:
    return _("synchronisation");
  default:
    return _("other");
  }
}

void gw_mfu_facts_text(const struct gw_diagnosis *dx, FILE *out, const char *bold, const char *reset) {
  for (int i = 0; dx->mfu && i < dx->ngpus; i++) {
    const struct gw_mfu *m = &dx->mfu[i];
    if (!m->measured)
      continue;
    fprintf(out, _("%sMFU%s GPU %d: "), bold, reset, dx->ledgers[i].gpu);
    if (!isnan(m->mfu_pct))
      fprintf(out, _("%.0f%% of %.0f TFLOP/s dense %s (%s)"), m->mfu_pct, m->peak_tflops, m->dtype_label, m->model);
    else if (!isnan(m->peak_tflops)) /* known peak, no step time to divide by */
      fprintf(out, _("unknown, no step was timed (the peak: %.0f TFLOP/s dense %s, %s)"), m->peak_tflops,
              m->dtype_label, m->model);
    else
      fputs(_("no peak known for this GPU"), out);
    if (!isnan(m->mfu_at_clock_pct))
      fprintf(out, _("; %.0f%% of the %.0f TFLOP/s its %.0f MHz clock allows"), m->mfu_at_clock_pct,
              m->clock_peak_tflops, m->run_clock_mhz);
    if (!isnan(m->achieved_tflops))
      fprintf(out,
              _(".\n  %.1f TFLOP/s achieved: %.3g FLOPs a step (forward and backward) in %.2f ms steps on average"),
              m->achieved_tflops, m->flops_per_step, m->step_s * 1e3);
    else
      fprintf(out, _(".\n  %.3g FLOPs a step (forward and backward)"), m->flops_per_step);
    if (!isnan(m->counting_cost_pct))
      fprintf(out, _("; counting step %lld cost %+.0f%% of its time, once"), (long long)m->step, m->counting_cost_pct);
    fputs(".\n", out);
  }
  const struct gw_goodput *g = &dx->goodput_job;
  if (!(g->wall_s > 0))
    return;
  fprintf(out, _("%sGoodput%s %.0f%% of %.0f GPU-seconds; badput:"), bold, reset, 100 * g->goodput_s / g->wall_s,
          g->wall_s);
  for (int b = 0; b < GW_BADPUT_N; b++)
    fprintf(out, " %s %.0f%%%s", badput_title((enum gw_badput)b), 100 * g->badput_s[b] / g->wall_s,
            b + 1 < GW_BADPUT_N ? "," : "\n\n");
}

/* unknown is null; whole values as integers, others round-trip exactly */
static void jnum(FILE *out, double v) {
  gw_json_write_number(out, v);
}

static void jkv(FILE *out, const char *key, double v, const char *sep) {
  fprintf(out, "\"%s\": ", key);
  jnum(out, v);
  fputs(sep, out);
}

static void goodput_json(FILE *out, const struct gw_goodput *g) {
  fputs("{", out);
  jkv(out, "wall_s", g->wall_s, ", ");
  jkv(out, "goodput_s", g->goodput_s, ", ");
  jkv(out, "goodput_share", g->wall_s > 0 ? g->goodput_s / g->wall_s : NAN, ", ");
  fputs("\"badput_s\": {", out);
  for (int b = 0; b < GW_BADPUT_N; b++) {
    fprintf(out, "\"%s\": ", gw_badput_id((enum gw_badput)b));
    jnum(out, g->badput_s[b]);
    fputs(b + 1 < GW_BADPUT_N ? ", " : "}}", out);
  }
}

void gw_mfu_facts_json(const struct gw_diagnosis *dx, FILE *out) {
  if (!gw_mfu_any_measured(dx)) {
    fputs("  \"mfu\": null,\n  \"mfu_note\": \"not measured (no counted step: record with the Python hook)\",\n", out);
  } else {
    fputs("  \"mfu\": [\n", out);
    for (int i = 0; i < dx->ngpus; i++) {
      const struct gw_mfu *m = &dx->mfu[i];
      fprintf(out, "    {\"gpu\": %d, \"measured\": %s, ", dx->ledgers[i].gpu, m->measured ? "true" : "false");
      fputs("\"gpu_model\": ", out);
      gw_json_write_string(out, m->model ? m->model : "");
      fputs(", \"dtype\": ", out);
      gw_json_write_string(out, m->dtype_label);
      fputs(", ", out);
      jkv(out, "flops_per_step", m->flops_per_step, ", ");
      jkv(out, "step_s", m->step_s, ", ");
      jkv(out, "achieved_tflops", m->achieved_tflops, ", ");
      jkv(out, "peak_tflops_dense", m->peak_tflops, ", ");
      jkv(out, "peak_clock_mhz", m->peak_clock_mhz, ", ");
      jkv(out, "mfu", m->mfu_pct / 100, ", ");
      jkv(out, "run_clock_mhz", m->run_clock_mhz, ", ");
      jkv(out, "clock_peak_tflops", m->clock_peak_tflops, ", ");
      jkv(out, "mfu_at_run_clock", m->mfu_at_clock_pct / 100, ", ");
      jkv(out, "counted_step", m->measured ? (double)m->step : NAN, ", ");
      jkv(out, "counted_step_s", m->counted_step_s, ", ");
      jkv(out, "neighbour_steps_median_s", m->neighbours_step_s, ", ");
      jkv(out, "counting_cost_share", m->counting_cost_pct / 100, ", ");
      jkv(out, "batch_size", m->batch_size > 0 ? (double)m->batch_size : NAN, "");
      fprintf(out, "}%s\n", i + 1 < dx->ngpus ? "," : "");
    }
    fputs("  ],\n  \"mfu_note\": null,\n", out);
  }
  fputs("  \"goodput\": {\"job\": ", out);
  goodput_json(out, &dx->goodput_job);
  fputs(", \"gpus\": [", out);
  for (int i = 0; dx->goodput && i < dx->ngpus; i++) {
    fprintf(out, "%s{\"gpu\": %d, \"buckets\": ", i ? ", " : "", dx->ledgers[i].gpu);
    goodput_json(out, &dx->goodput[i]);
    fputs("}", out);
  }
  fputs("]},\n", out);
}
