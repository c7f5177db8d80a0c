#include <gpuwhy/experiment.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/steady_steps.h"
#include "compare/comparison.h"
#include "compare/run_load.h"
#include "compare/steady_run.h"
#include "core/i18n.h"
#include "core/util.h"
#include "store/store.h"

static double max_seconds_of(const struct gw_fixed_batch_opts *o) {
  return o->max_seconds > 0 ? o->max_seconds : o->seconds + GW_FIXED_BATCH_WARMUP_ROOM_S;
}

static void record_once(const struct gw_fixed_batch_opts *o, const char *path, int replay, FILE *out,
                        struct gw_steady_run *res) {
  struct gw_steady_run_opts so = {
      .argv = o->argv, .seconds = o->seconds, .max_seconds = max_seconds_of(o), .nvml_lib = o->nvml_lib};
  char k[32];
  snprintf(k, sizeof k, "%d", o->batches);
  if (replay)
    setenv("GPUWHY_PY_FIXED_BATCHES", k, 1);
  if (!o->quiet && replay)
    fprintf(stderr, _("gpuwhy: run 2 of 2: every DataLoader replays its first %s batches\n"), k);
  else if (!o->quiet)
    fputs(_("gpuwhy: run 1 of 2: the command as it is\n"), stderr);
  gw_steady_run_record(&so, path, res);
  unsetenv("GPUWHY_PY_FIXED_BATCHES");
  if (res->msg[0])
    fprintf(out, "gpuwhy experiment: %s\n", res->msg);
}

static void print_run(FILE *out, const char *label, const struct gw_run_summary *s, const struct gw_steady_run *res,
                      int per_sample) {
  double v = gw_run_throughput(s, per_sample);
  fprintf(out, _("  %-34s %10.2f %-9s (%zu steady steps in %.1f s after %zu warm-up steps, median step %.2f ms)\n"),
          label, v, per_sample ? _("samples/s") : _("steps/s"), s->nsteps, res->steady.steady_s, res->steady.first + 1,
          s->step_median_s * 1e3);
}

/* A run stopped short of the steady seconds asked: what was measured is less. */
static void note_short(FILE *out, const char *label, const struct gw_steady_run *res, double seconds) {
  if (res->reached || res->steady.steady_s >= seconds)
    return;
  if (res->capped)
    fprintf(out, _("Note: %s measured %.1f s of steady steps, less than the %.0f s asked: --max-seconds ended it.\n"),
            label, res->steady.steady_s, seconds);
  else
    fprintf(out, _("Note: %s measured %.1f s of steady steps, less than the %.0f s asked: the command ended first.\n"),
            label, res->steady.steady_s, seconds);
}

/* 0 when both runs have steady steps; else says why not. */
static int both_steady(FILE *out, const struct gw_run_summary *a, const struct gw_run_summary *b,
                       const struct gw_steady_run *ra, const struct gw_steady_run *rb, double max_s) {
  if (ra->steady.state == GW_STEADY_TOO_FEW || rb->steady.state == GW_STEADY_TOO_FEW) {
    fprintf(out,
            _("The runs have too few steps to tell their warm-up from their steady steps (%zu and %zu; %d are "
              "needed): let the command run longer.\n"),
            a->nsteps, b->nsteps, GW_STEADY_MIN_STEPS);
    return -1;
  }
  const struct gw_steady_run *r[2] = {ra, rb};
  const char *label[2] = {_("as it is"), _("fixed batches (no input pipeline)")};
  int rc = 0;
  for (int i = 0; i < 2; i++) {
    if (r[i]->steady.state == GW_STEADY_FOUND)
      continue;
    if (r[i]->capped)
      fprintf(out,
              _("The run \"%s\" reached no steady steps in %.0f s (--max-seconds): its step times were still "
                "changing; nothing is compared. Give it longer, or see gpuwhy report of such a run.\n"),
              label[i], max_s);
    else
      fprintf(out,
              _("The run \"%s\" ended before its steps were steady: its step times were still changing; nothing "
                "is compared. Let the command run longer.\n"),
              label[i]);
    rc = -1;
  }
  return rc;
}

int gw_fixed_batch_run(const struct gw_fixed_batch_opts *o, FILE *out) {
  char dir[4096];
  const char *parent = NULL;
  /* The project's private-folder helper: $TMPDIR when set, as serve and report do. */
  if (gw_make_temp_dir("gpuwhy-fixed-batch", dir, sizeof dir, &parent) != 0) {
    fprintf(out, "gpuwhy experiment: cannot create a folder in %s for the recordings: %s\n", parent, strerror(errno));
    return GPUWHY_EXIT_INPUT;
  }
  char plain[4200], fixed[4200];
  snprintf(plain, sizeof plain, "%s/plain.db", dir);
  snprintf(fixed, sizeof fixed, "%s/fixed.db", dir);
  int rc = GPUWHY_EXIT_INPUT;
  struct gw_run_summary a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  int loaded_a = 0, loaded_b = 0;
  struct gw_steady_run ra, rb;
  memset(&ra, 0, sizeof ra);
  memset(&rb, 0, sizeof rb);
  record_once(o, plain, 0, out, &ra);
  record_once(o, fixed, 1, out, &rb);
  int st1 = ra.status, st2 = rb.status;
  if (gw_store_count_runs(plain) != 1 || gw_store_count_runs(fixed) != 1) {
    /* no recording: the recorder's status says whether gpuwhy failed (125)
     * or the command could not be run (126) or found (127), as record's */
    int st = gw_store_count_runs(plain) != 1 ? st1 : st2;
    if (st == GPUWHY_EXIT_TOOL_FAILED || st == GPUWHY_EXIT_CANNOT_RUN || st == GPUWHY_EXIT_NOT_FOUND)
      rc = st;
    goto done;
  }
  if (gw_store_count_events(fixed, "fixed_batch") <= 0) {
    fprintf(out,
            _("No DataLoader batches were replayed: the command used no torch DataLoader (or fewer than %d "
              "batches of one), so there is no input pipeline to take out. Exit statuses: %d and %d.\n"),
            o->batches + 1, st1, st2);
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  struct gw_err err = {{0}};
  loaded_a = gw_run_summary_load(plain, &a, &err) == GW_OK;
  loaded_b = loaded_a && gw_run_summary_load(fixed, &b, &err) == GW_OK;
  if (!loaded_b) {
    fprintf(out, "gpuwhy experiment: %s\n", err.msg);
    goto done;
  }
  gw_steady_run_keep_steady(&a, &ra);
  gw_steady_run_keep_steady(&b, &rb);
  if (both_steady(out, &a, &b, &ra, &rb, max_seconds_of(o)) != 0) {
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  struct gw_comparison c;
  gw_compare_pair(&a, &b, NULL, 0, &c);
  if (c.basis != GW_BASIS_STEPS) {
    fprintf(out, _("The runs have too few steps to compare (%zu and %zu); let the command run longer.\n"), a.nsteps,
            b.nsteps);
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  fprintf(out, _("Fixed-batch experiment (%d cached batches per DataLoader)\n"), o->batches);
  print_run(out, _("as it is"), &a, &ra, c.per_sample);
  print_run(out, _("fixed batches (no input pipeline)"), &b, &rb, c.per_sample);
  fprintf(out, _("  throughput ratio %.2fx (95%% interval %.2fx .. %.2fx)\n"), c.throughput.point, c.throughput.lo,
          c.throughput.hi);
  if (c.verdict == GW_VERDICT_BETTER)
    fprintf(out,
            _("Input-bound: without the input pipeline the job runs %.2fx as fast, so the data loading limits it.\n"),
            c.throughput.point);
  else if (c.verdict == GW_VERDICT_SAME)
    fprintf(out, _("Not input-bound: replaying cached batches does not change throughput significantly; the limit is "
                   "elsewhere (see gpuwhy report).\n"));
  else if (c.verdict == GW_VERDICT_WORSE)
    fprintf(out, _("Replaying cached batches made the job slower, which the input pipeline cannot explain; the runs "
                   "may differ in other ways (other load on the machine?).\n"));
  else
    fprintf(out, _("Undecided: the two runs' step times are too spread to tell; run longer.\n"));
  note_short(out, _("as it is"), &ra, o->seconds);
  note_short(out, _("fixed batches (no input pipeline)"), &rb, o->seconds);
  rc = GPUWHY_EXIT_OK;
done:
  if (loaded_a)
    gw_run_summary_free(&a);
  if (loaded_b)
    gw_run_summary_free(&b);
  gw_store_remove_files(plain);
  gw_store_remove_files(fixed);
  rmdir(dir);
  return rc;
}
