#include "render/step_facts.h"

#include <math.h>

#include "core/i18n.h"
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
