#include <gpuwhy/experiment.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/comparison.h"
#include "core/i18n.h"
#include "core/util.h"
#include "store/store.h"

static int record_once(const struct gw_fixed_batch_opts *o, const char *path, int replay, FILE *out) {
  struct gw_record_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.out_path = path;
  ro.interval_ms = 100;
  ro.gpm_interval_ms = 1000;
  ro.argv = o->argv;
  ro.nvml_lib = o->nvml_lib;
  ro.quiet = 1;
  ro.duration_s = o->seconds;
  ro.stop_command = o->seconds > 0;
  char k[32];
  snprintf(k, sizeof k, "%d", o->batches);
  if (replay)
    setenv("GPUWHY_PY_FIXED_BATCHES", k, 1);
  if (!o->quiet && replay)
    fprintf(stderr, _("gpuwhy: run 2 of 2: every DataLoader replays its first %s batches\n"), k);
  else if (!o->quiet)
    fputs(_("gpuwhy: run 1 of 2: the command as it is\n"), stderr);
  char msg[1024];
  int status = gw_record_run(&ro, msg, sizeof msg);
  unsetenv("GPUWHY_PY_FIXED_BATCHES");
  if (msg[0])
    fprintf(out, "gpuwhy experiment: %s\n", msg);
  return status;
}

static void print_run(FILE *out, const char *label, const struct gw_run_summary *s, int per_sample) {
  double v = gw_run_throughput(s, per_sample);
  fprintf(out, "  %-34s %10.2f %-9s (%zu steps, median step %.2f ms)\n", label, v,
          per_sample ? _("samples/s") : _("steps/s"), s->nsteps, s->step_median_s * 1e3);
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
  int st1 = record_once(o, plain, 0, out);
  int st2 = record_once(o, fixed, 1, out);
  if (gw_store_count_rows(plain, "SELECT count(*) FROM run") != 1 ||
      gw_store_count_rows(fixed, "SELECT count(*) FROM run") != 1)
    goto done;
  if (gw_store_count_rows(fixed, "SELECT count(*) FROM event WHERE kind = 'fixed_batch'") <= 0) {
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
  struct gw_comparison c;
  gw_compare_pair(&a, &b, NULL, 0, &c);
  if (c.basis != GW_BASIS_STEPS) {
    fprintf(out, _("The runs have too few steps to compare (%zu and %zu); run longer (--seconds).\n"), a.nsteps,
            b.nsteps);
    rc = GPUWHY_EXIT_USAGE;
    goto done;
  }
  fprintf(out, _("Fixed-batch experiment (%d cached batches per DataLoader)\n"), o->batches);
  print_run(out, _("as it is"), &a, c.per_sample);
  print_run(out, _("fixed batches (no input pipeline)"), &b, c.per_sample);
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
