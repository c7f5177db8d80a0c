/* Confidence that falls with the share a finding leaves unexplained.
 *
 * A rule's score says how strongly its signals point at its class; it does
 * not say how much of the lost time the class accounts for. Two things weaken
 * the claim "this class is why the GPU waited":
 * - the finding explains little of the loss. Every signal is measured over
 *   the whole run and its stretches are charged by sampling (20-50 Hz stacks,
 *   1 s GPM windows), so a class picks up a slice of its neighbours' time:
 *   the sync a loop times its steps with, the launches around an eval pass.
 *   A class that holds half the lost time or more is by arithmetic the
 *   largest cause and cannot be such a slice; below half, its confidence
 *   falls in proportion to its share (a sixth of the loss keeps a third).
 * - a large row of the loss stays unexplained (idle: other, or samples that
 *   named no activity). What drives that row is unseen, and it may drive the
 *   finding's own signals too (a stall the samplers cannot name also leaves
 *   the launching thread idle); the claim keeps the part of the loss that is
 *   not in that row.
 * Where the samples charged each idle stretch to what the launching thread
 * was doing (dx->measured), a class they can name is held to the share they
 * measured for it: a rule's larger share rests on run-wide signals that a
 * neighbour cause moves too (an eval pass's own slow loader raises the
 * host's data signals while the samples see the thread in evaluate()).
 * - for launch overhead, steps that met an input shape not seen before. On a
 *   new shape the launching thread also picks kernels for it (cuDNN's and
 *   cuBLAS's autotuning and heuristics), grows the allocator's pools and may
 *   compile: host work inside the model's forward and backward that a stack
 *   sample cannot tell from launching (the Python frame is the same module
 *   call). The claim holds for the steps that repeated a shape.
 * - for launch overhead again, a step too long for launches to pace: a launch
 *   costs the host 5-20 us, so a step of a second or more would need 50,000
 *   launches or more, far beyond a model's step (a 100-layer transformer's
 *   forward and backward launch about 10,000 kernels). A kernel trace counts
 *   the launches; without one the claim falls in proportion above a second
 *   (the step: the GPUs' working span over the steps the loop finished).
 * The factor is the product of these; the calibration table
 * (confidence_calibration.c) maps the scaled score to the rate at which
 * findings of that score were right, out of sample. */
#include "analysis/confidence_share.h"

#include <math.h>
#include <string.h>

#include "analysis/compile_shapes.h"
#include "analysis/confidence_calibration.h"
#include "analysis/idle_attribution.h"

/* Half the lost time: the share from which no other cause can be larger. */
#define FULL_CONFIDENCE_SHARE_OF_LOST 0.5

double gw_unexplained_row_share(const struct gw_diagnosis *dx) {
  if (!(dx->lost_ns > 0))
    return 0;
  double ledger_ns = dx->total.row_ns[GW_ROW_IDLE_OTHER] - dx->other_claimed_ns;
  double samples_ns = 0; /* the largest cause of the samples that names no class, all GPUs */
  for (int c = 0; dx->attr && c < GW_IDLE_NCAUSES; c++) {
    if (strcmp(gw_idle_cause_class(c), "unexplained") != 0)
      continue;
    double s = 0;
    for (int i = 0; i < dx->ngpus; i++)
      s += dx->attr[i].rows[c].seconds * 1e9;
    samples_ns = fmax(samples_ns, s);
  }
  double u = fmax(ledger_ns, samples_ns) / dx->lost_ns;
  /* what the findings claim is not unexplained, whatever row it sits in */
  double claimed = 0;
  for (int i = 0; i < dx->nfindings; i++)
    claimed += dx->findings[i].share_of_lost;
  u = fmin(u, 1 - claimed);
  return isfinite(u) && u > 0 ? u : 0;
}

double gw_confidence_share_factor(double share_of_lost, double unexplained_share) {
  if (!isfinite(share_of_lost) || !isfinite(unexplained_share))
    return 1; /* unknown shares: the rule's score stands */
  double explains = fmin(1, fmax(0, share_of_lost) / FULL_CONFIDENCE_SHARE_OF_LOST);
  double left = 1 - fmin(1, fmax(0, unexplained_share));
  return explains * left;
}

/* The share of the lost time the samples charged to class_id (all GPUs),
 * or NAN when the recording has no samples or no cause names that class
 * (small_batch, hardware_env: the samples cannot see them). */
static double measured_class_share(const struct gw_diagnosis *dx, const char *class_id) {
  if (!dx->measured || !dx->attr)
    return NAN;
  int named = 0;
  double ns = 0;
  for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
    if (strcmp(gw_idle_cause_class(c), class_id) != 0)
      continue;
    named = 1;
    for (int i = 0; i < dx->ngpus; i++)
      ns += dx->attr[i].rows[c].seconds * 1e9;
  }
  return named ? ns / dx->lost_ns : NAN;
}

double gw_repeated_shape_share(const struct gw_compile_shapes *cs) {
  if (!cs->shape_known || cs->nsteps == 0)
    return 1;
  return 1 - fmin(1, (double)cs->first_visits / (double)cs->nsteps);
}

int gw_steps_mostly_new_shapes(const struct gw_compile_shapes *cs) {
  return gw_repeated_shape_share(cs) <= 0.5;
}

double gw_launch_step_s(const struct gw_diagnosis *dx) {
  const struct gw_compile_shapes *cs = &dx->compile_shapes;
  if (dx->total.from_timeline || cs->nsteps == 0)
    return 0;
  /* the GPUs' working span (the ledgers' sum holds it) over the steps the
   * loop finished in it, the one in progress at either end counted: a loop
   * that finished one step in 12 s of work had 6 s steps, whatever that one
   * step's own length */
  int64_t start_ns = dx->total.active_start_ns, end_ns = dx->total.active_end_ns;
  return fmax(cs->step_total_s / (double)cs->nsteps, (double)(end_ns - start_ns) / 1e9 / (double)(cs->nsteps + 1));
}

double gw_launch_step_factor(const struct gw_diagnosis *dx) {
  double step_s = gw_launch_step_s(dx);
  return step_s > GW_LAUNCH_PACED_STEP_MAX_S ? GW_LAUNCH_PACED_STEP_MAX_S / step_s : 1;
}

/* The part of the launch class's idle time that launches can have paced,
 * measured by the samples or found by the counters. Without a kernel trace
 * to count them, a step longer than launches fill is paced by other host
 * work (gw_launch_step_factor). And where steps met new shapes and too few
 * repeated one to time a step without a new shape (gw_shape_stalls then
 * leaves the first visits unjudged), the frames that launch also pick and
 * tune kernels and grow the allocator for each new shape: only the repeats'
 * share is launching. With enough repeats the stall test already gave the
 * first visits' excess to the new shapes, or found that they cost nothing.
 * The rest is no class's, so a loop of a few second-long steps on new
 * shapes is not told to fix its launches first. */
double gw_launch_claim_factor(const struct gw_diagnosis *dx) {
  const struct gw_compile_shapes *cs = &dx->compile_shapes;
  double factor = gw_launch_step_factor(dx);
  /* the steps after the first that met a shape seen before */
  size_t repeats = cs->nsteps > (size_t)cs->first_visits + 1 ? cs->nsteps - (size_t)cs->first_visits - 1 : 0;
  if (cs->shape_known && cs->first_visits > 0 && repeats < GW_STALL_MIN_FIRST_VISITS)
    factor *= gw_repeated_shape_share(cs);
  return factor;
}

void gw_confidence_by_share(struct gw_diagnosis *dx) {
  if (!(dx->lost_ns > 0))
    return;
  double u = gw_unexplained_row_share(dx);
  for (int i = 0; i < dx->nfindings; i++) {
    struct gw_finding *f = &dx->findings[i];
    if (f->fix_first) /* a fault the driver reported: its weight is not a share of idle time */
      continue;
    double share = f->share_of_lost, measured = measured_class_share(dx, f->class_id);
    if (!isnan(measured))
      share = fmin(share, measured);
    f->confidence_raw *= gw_confidence_share_factor(share, u);
    if (strcmp(f->class_id, "launch_overhead") == 0)
      f->confidence_raw *= gw_repeated_shape_share(&dx->compile_shapes) * gw_launch_step_factor(dx);
    f->confidence = gw_confidence_calibrated(f->confidence_raw);
  }
}
