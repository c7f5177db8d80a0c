/* The verdict of a recording with thread or Python samples: the class that
 * the samples charged the most idle time to (analysis/idle_attribution.c). */
#include "analysis/measured_verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compile_shapes.h"
#include "analysis/confidence_calibration.h"
#include "analysis/confidence_share.h"
#include "analysis/evidence.h"
#include "analysis/finding_rank.h"
#include "analysis/idle_attribution.h"
#include "analysis/rules.h"
#include "analysis/thresholds.h"

/* What to try for each measured cause, cheapest first: the rules' own fix
 * ids for the same cause (render/fix_text.c words them). A finding that the
 * samples alone made has no rule to give it fixes. */
struct cause_fix {
  int cause;
  const char *fix_id;
};
static const struct cause_fix CAUSE_FIXES[] = {
    {GW_PYACT_DATA_WAIT, "input_pipeline.more_workers"},
    {GW_PYACT_DATA_INLINE, "input_pipeline.more_workers"},
    {GW_PYACT_DATA_INLINE, "input_pipeline.transforms_on_gpu"},
    {GW_PYACT_H2D, "input_pipeline.pin_memory"},
    {GW_CAUSE_LOCK_WAIT, "schedule_shape.move_helper_thread"},
    {GW_CAUSE_HELPER_LOCK_WAIT, "schedule_shape.move_helper_thread"},
    {GW_CAUSE_DISK_IO, "input_pipeline.local_shards"},
    {GW_PYACT_SYNC, "launch_overhead.remove_syncs"},
    {GW_PYACT_CHECKPOINT, "schedule_shape.async_checkpoint"},
    {GW_PYACT_EVAL, "schedule_shape.eval_less_often"},
    {GW_PYACT_LOGGING, "schedule_shape.background_logging"},
    {GW_PYACT_COMPILE, "schedule_shape.fixed_shapes"},
    {GW_CAUSE_NEW_SHAPE, "schedule_shape.fixed_shapes"},
    {GW_PYACT_COLLECTIVE, "multi_gpu_sync.overlap_allreduce"},
    {GW_PYACT_FORWARD_BACKWARD, "launch_overhead.cuda_graphs"},
    {GW_PYACT_OPTIMIZER, "launch_overhead.fused_kernels"},
    {GW_CAUSE_HOST_RUNNING, "launch_overhead.cuda_graphs"},
};

/* The cause of this class with the most idle time over all GPUs, -1 none. */
static int largest_cause(const struct gw_diagnosis *dx, const char *class_id) {
  int best = -1;
  double best_s = 0;
  for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
    if (strcmp(gw_idle_cause_class(c), class_id) != 0)
      continue;
    double s = 0;
    for (int i = 0; i < dx->ngpus; i++)
      s += dx->attr[i].rows[c].seconds;
    if (s > best_s) {
      best_s = s;
      best = c;
    }
  }
  return best;
}

/* The loop waited for the GPU in a synchronizing call (.item(), .cpu(),
 * synchronize) for a share of its typical steps any cause needs to be named:
 * each wait empties the GPU's queue, so the launches after it find the GPU
 * idle, and the launch idle the samples charge is the sync's doing. Taking
 * the sync out of the step lets the host run ahead and hide the launches
 * behind the GPU's work, which CUDA Graphs alone would not. */
static int syncs_every_step(const struct gw_diagnosis *dx) {
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  return gw_step_typical_share(b, b->kinds[GW_STEP_KIND_TYPICAL].sync_s) >= gw_thr.finding_min_share;
}

static void add_cause_fixes(struct gw_finding *f, int cause) {
  for (size_t i = 0; i < sizeof CAUSE_FIXES / sizeof CAUSE_FIXES[0]; i++)
    if (CAUSE_FIXES[i].cause == cause)
      gw_finding_fix(f, CAUSE_FIXES[i].fix_id);
}

/* Puts the fixes of a measured cause first on a finding a rule made, each
 * once; the rule's own fixes follow, the last dropped where they no longer
 * fit. */
static void lead_with_cause_fixes(struct gw_finding *f, int cause) {
  for (size_t i = sizeof CAUSE_FIXES / sizeof CAUSE_FIXES[0]; i-- > 0;) {
    if (CAUSE_FIXES[i].cause != cause)
      continue;
    int at = -1;
    for (int j = 0; j < f->nfixes; j++)
      if (strcmp(f->fixes[j].id, CAUSE_FIXES[i].fix_id) == 0)
        at = j;
    if (at < 0) {
      at = f->nfixes < GW_MAX_FIXES ? f->nfixes++ : GW_MAX_FIXES - 1;
      f->fixes[at].id = CAUSE_FIXES[i].fix_id;
    }
    struct gw_fix lead = f->fixes[at];
    memmove(&f->fixes[1], &f->fixes[0], (size_t)at * sizeof lead);
    f->fixes[0] = lead;
  }
}

/* The smallest share of the lost time the largest measured class must
 * explain to be the verdict (thresholds.c says why). */
#define MEASURED_VERDICT_MIN_SHARE gw_thr.verdict_min_share_of_lost

static const char *const MEASURED_CLASSES[] = {"input_pipeline", "schedule_shape", "multi_gpu_sync", "launch_overhead"};

static int is_measured_class(const char *class_id) {
  for (size_t k = 0; k < sizeof MEASURED_CLASSES / sizeof MEASURED_CLASSES[0]; k++)
    if (strcmp(class_id, MEASURED_CLASSES[k]) == 0)
      return 1;
  return 0;
}

/* MEASURED_CLASSES' index of the input pipeline, of the schedule, and of
 * launch overhead. */
#define INPUT_CLASS 0
#define SCHEDULE_CLASS 1
#define LAUNCH_CLASS 3

static int has_evidence(const struct gw_finding *f, const char *id) {
  for (int e = 0; e < f->nevidence; e++)
    if (strcmp(f->evidence[e].id, id) == 0)
      return 1;
  return 0;
}

/* Whether the Python stack sampler's samples charged some GPU's idle time. */
static int has_stack_samples(const struct gw_diagnosis *dx) {
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->attr[i].source == GW_ATTR_PY)
      return 1;
  return 0;
}

/* The finding of class k a counter rule made that the samples measure
 * more directly, or NULL. The input rule's (a busy host, busy workers) and,
 * with stack samples, the launch rule's from the gaps a busy host leaves
 * (not its storm of resident kernels with empty SMs, which is busy time the
 * samples do not charge): the stack samples saw what the thread did while
 * the GPU idled, where the counters infer launching from a busy core. */
static struct gw_finding *counter_finding_samples_measure(struct gw_diagnosis *dx, int k) {
  if (k != INPUT_CLASS && k != LAUNCH_CLASS)
    return NULL;
  struct gw_finding *f = gw_finding_of_class(dx, MEASURED_CLASSES[k]);
  if (!f || f->fix_first)
    return NULL;
  if (k == INPUT_CLASS)
    return f;
  return has_stack_samples(dx) && !has_evidence(f, "kernels_too_small") ? f : NULL;
}

/* The schedule rule's weakest finding, steps uneven with no period and
 * nothing else behind it, is an inference about what the time above the
 * median step was spent on. The stack samples saw what: where they put the
 * schedule's activities (an evaluation, a checkpoint, logging, compiling, a
 * new shape) under the share a finding needs, the spread was something
 * else's (most often the waits for data, whose length varies), and the
 * finding goes. Only with stack samples: thread samples cannot see these
 * activities at all. */
static void drop_spread_only_schedule(struct gw_diagnosis *dx) {
  struct gw_finding *f = gw_finding_of_class(dx, MEASURED_CLASSES[SCHEDULE_CLASS]);
  if (!has_stack_samples(dx) || !f || f->fix_first)
    return;
  int spread = has_evidence(f, "steps_marked_no_period") || has_evidence(f, "steps_estimated_no_period");
  if (!spread || f->nevidence != 1)
    return;
  gw_finding_remove(dx, f);
}

/* The input class's measured idle seconds (class_s[INPUT_CLASS]) made to
 * agree with the hook's own timing of the waits. The hook times every wait
 * for a batch exactly (the ledger's input row holds the GPU's idle time in
 * them), where samples at 20-50 Hz see a wait only as often as they fall in
 * it and can file part of it elsewhere. Both measure the same idle time, so
 * the larger counts, up to the idle time the samples did not give to another
 * named class: an older hook that also timed an evaluation pass's own
 * batches as the step's data wait cannot claim the time the samples saw the
 * thread evaluating. */
static void reconcile_input_waits(const struct gw_diagnosis *dx, double *class_s) {
  /* the idle time, as the samples' stretches or the ledger's idle rows
   * count it (their tick tests differ), whichever holds more */
  double attr_idle_s = 0, ledger_idle_ns, named_other_s = 0;
  for (int i = 0; i < dx->ngpus; i++)
    attr_idle_s += dx->attr[i].idle_s;
  ledger_idle_ns = gw_ledger_idle_ns(&dx->total);
  double idle_s = fmax(attr_idle_s, ledger_idle_ns / 1e9);
  for (size_t k = 0; k < sizeof MEASURED_CLASSES / sizeof MEASURED_CLASSES[0]; k++)
    if (k != INPUT_CLASS)
      named_other_s += class_s[k];
  double hook_s = dx->total.row_ns[GW_ROW_IDLE_INPUT] / 1e9;
  double room_s = fmax(0, idle_s - named_other_s);
  class_s[INPUT_CLASS] = fmax(class_s[INPUT_CLASS], fmin(hook_s, room_s));
}

/* A finding's share of the active time, and its share of the loss and
 * largest speed-up that follow from it. */
static void set_share(const struct gw_diagnosis *dx, struct gw_finding *f, double share_of_active) {
  f->share_of_active = share_of_active;
  f->share_of_lost = dx->lost_ns > 0 ? fmin(1, share_of_active * dx->active_ns / dx->lost_ns) : 0;
  f->speedup_max = 1 / (1 - fmin(share_of_active, 0.99));
}

/* Recordings with thread or Python samples: each idle class's time is what
 * the samples charged to it (all GPUs); a class's finding gets that share
 * (or keeps a larger one its rule found), the evidence names the activity
 * and the user frame, and the verdict is the class with the most measured
 * idle time, or unexplained when it holds under the minimum share. */
void gw_measured_verdict(struct gw_diagnosis *dx) {
  enum { NC = sizeof MEASURED_CLASSES / sizeof MEASURED_CLASSES[0] };
  double class_s[NC] = {0};
  for (int i = 0; i < dx->ngpus; i++)
    for (int c = 0; c < GW_IDLE_NCAUSES; c++)
      for (int k = 0; k < NC; k++)
        if (strcmp(gw_idle_cause_class(c), MEASURED_CLASSES[k]) == 0)
          class_s[k] += dx->attr[i].rows[c].seconds;
  reconcile_input_waits(dx, class_s);
  class_s[LAUNCH_CLASS] *= gw_launch_claim_factor(dx);
  /* Thread samples alone read launching and any other work of the thread
   * alike, as running (serializing a checkpoint, an evaluation's forward,
   * making a batch): without the stack samples to name it, running counts
   * for launching only beside the launch rule's own signature in the
   * counters (a storm of tiny kernels, a busy launcher beside a GPU
   * resident part of each tick). */
  if (!has_stack_samples(dx) && !gw_finding_of_class(dx, "launch_overhead"))
    class_s[LAUNCH_CLASS] = 0;
  int best = -1;
  for (int k = 0; k < NC; k++) {
    if (best < 0 || class_s[k] > class_s[best])
      best = k;
    double share = gw_rule_share(dx, class_s[k] * 1e9);
    if (share < gw_thr.finding_min_share) {
      /* a rule's finding of a class the samples measure cannot claim more
       * than the measured idle, here under the share a finding needs: it
       * goes, so that it never outweighs the verdict on a share it cannot
       * show */
      struct gw_finding *in = counter_finding_samples_measure(dx, k);
      if (in && in->share_of_active > share)
        gw_finding_remove(dx, in);
      if (k == SCHEDULE_CLASS)
        drop_spread_only_schedule(dx);
      continue;
    }
    struct gw_finding *f = gw_finding_of_class(dx, MEASURED_CLASSES[k]);
    if (!f) {
      if (dx->nfindings >= GW_MAX_FINDINGS)
        continue;
      const struct gw_rule *r = gw_rule_find(MEASURED_CLASSES[k]);
      f = &dx->findings[dx->nfindings++];
      memset(f, 0, sizeof *f);
      f->class_id = r->id;
      /* measured inside the program: as strong as the hook's own data waits */
      f->confidence_raw = 0.9;
      f->confidence = gw_confidence_calibrated(f->confidence_raw);
      int cause = largest_cause(dx, MEASURED_CLASSES[k]);
      if (strcmp(MEASURED_CLASSES[k], "launch_overhead") == 0 && cause != GW_PYACT_SYNC && syncs_every_step(dx)) {
        const struct gw_step_breakdown *b = &dx->step_breakdown;
        const struct gw_step_split *t = &b->kinds[GW_STEP_KIND_TYPICAL];
        gw_evidence(f, "sync_every_step", b->gpu, 0, 0,
                    GW_NUM("share", GW_UNIT_FRACTION, gw_step_typical_share(b, t->sync_s)),
                    GW_NUM("sync", GW_UNIT_MS, 1e3 * t->sync_s), GW_NUM("step", GW_UNIT_MS, 1e3 * t->wall_s));
        gw_finding_fix(f, "launch_overhead.remove_syncs");
      }
      add_cause_fixes(f, cause);
    } else if (largest_cause(dx, MEASURED_CLASSES[k]) == GW_CAUSE_LOCK_WAIT ||
               largest_cause(dx, MEASURED_CLASSES[k]) == GW_CAUSE_HELPER_LOCK_WAIT) {
      /* the rule's fixes address its own signals (a copy, the loader's
       * workers; periodic work, shapes); a lock held by a busy thread of
       * the process goes first */
      lead_with_cause_fixes(f, largest_cause(dx, MEASURED_CLASSES[k]));
    }
    /* the input class's share is its measured idle (reconcile_input_waits
     * already weighs the hook's waits); the others keep a larger share
     * their rule found */
    set_share(dx, f, k == INPUT_CLASS ? share : fmax(f->share_of_active, share));
    /* the evidence: each cause of this class on each GPU, its activity and top user frame */
    for (int i = 0; i < dx->ngpus; i++) {
      const struct gw_idle_attribution *a = &dx->attr[i];
      for (int c = 0; c < GW_IDLE_NCAUSES; c++) {
        const struct gw_attr_row *row = &a->rows[c];
        if (strcmp(gw_idle_cause_class(c), MEASURED_CLASSES[k]) != 0 || row->seconds <= 0 ||
            gw_rule_share(dx, row->seconds * 1e9) < gw_thr.finding_min_share / 2)
          continue;
        const char *frame = row->nframes ? row->frame_text[0] : "-";
        gw_evidence(f, "idle_cause_measured", a->gpu, dx->ledgers[i].active_start_ns, dx->ledgers[i].active_end_ns,
                    GW_NUM("share", GW_UNIT_FRACTION, row->share_of_wall),
                    GW_PHRASE("activity", gw_idle_cause_phrase(c)), GW_TEXT_VALUE("frame", frame),
                    GW_NUM("idle_share", GW_UNIT_FRACTION, row->share_of_idle));
        double wsum = 0;
        for (int s = 0; s < GW_WORKER_NSTATES; s++)
          wsum += row->worker_s[s];
        if (c == GW_PYACT_DATA_WAIT && wsum > 0)
          gw_evidence(f, "idle_data_wait_workers", a->gpu, 0, 0, GW_NUM("workers", GW_UNIT_COUNT, a->nworkers),
                      GW_NUM("running", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_RUNNING] / wsum),
                      GW_NUM("net", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_NET] / wsum),
                      GW_NUM("disk", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_DISK] / wsum),
                      GW_NUM("pipe", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_PIPE] / wsum),
                      GW_NUM("other_sleep", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_OTHER_SLEEP] / wsum),
                      GW_NUM("absent", GW_UNIT_FRACTION, row->worker_s[GW_WORKERS_ABSENT] / wsum));
      }
    }
  }
  qsort(dx->findings, (size_t)dx->nfindings, sizeof dx->findings[0], gw_finding_cmp);
  /* Thread samples alone read a thread at work as "running": launching, or
   * serializing a checkpoint, running an evaluation, making a batch. They
   * cannot tell which, so a counter rule's finding of another class that
   * explains more of the loss than the samples' largest class leads (the
   * stack samples name the work, and decide alone). Nor can stack samples
   * in the model's forward and backward tell launching from the work of
   * steps that outlast what launches fill or meet new shapes: where their
   * launch time was discounted for that (gw_launch_claim_factor) and
   * launching leads or nothing does, the counters' finding may lead too. */
  int none_measured = !(class_s[best] > 0); /* the loop above set best: NC > 0 */
  int launch_doubted = gw_launch_claim_factor(dx) < 1 && (none_measured || best == LAUNCH_CLASS);
  if ((!has_stack_samples(dx) || launch_doubted) && dx->lost_ns > 0) {
    double lead = none_measured ? 0 : class_s[best] * 1e9 / dx->lost_ns;
    const struct gw_finding *own = none_measured ? NULL : gw_finding_of_class(dx, MEASURED_CLASSES[best]);
    if (own && own->share_of_lost > lead)
      lead = own->share_of_lost;
    for (int k = 0; k < NC; k++) {
      const struct gw_finding *f = gw_finding_of_class(dx, MEASURED_CLASSES[k]);
      if ((k != best || none_measured) && f && f->share_of_lost > lead) {
        best = k;
        lead = f->share_of_lost;
      }
    }
  }
  /* The gate reads the share the report prints for that class: its
   * finding's, where the counters measured more of the same idle time than
   * the samples did (dips of a periodic stall), so that no report calls a
   * class that explains half the loss "too little to name". */
  double best_share = dx->lost_ns > 0 && best >= 0 ? class_s[best] * 1e9 / dx->lost_ns : 0;
  const struct gw_finding *best_finding = best >= 0 ? gw_finding_of_class(dx, MEASURED_CLASSES[best]) : NULL;
  if (best_finding && best_finding->share_of_lost > best_share)
    best_share = best_finding->share_of_lost;
  if (best < 0 || best_share < MEASURED_VERDICT_MIN_SHARE) {
    /* No class holds and too little is lost to call it unexplained (the
     * counter rules' "none", decided on the same lost share): the samples
     * found nothing worth a finding either, so nothing is to fix. */
    int nothing_to_fix = strcmp(dx->verdict, "none") == 0 && dx->nfindings == 0;
    /* The samples charge idle time only; a class of busy time (SMs
     * underfilled, clocks held down) that holds the minimum share of the
     * loss is measured by the counters as directly, and stays the verdict. */
    const struct gw_finding *busy = NULL;
    for (int j = 0; j < dx->nfindings && !busy; j++)
      if (!is_measured_class(dx->findings[j].class_id) && dx->findings[j].share_of_lost >= MEASURED_VERDICT_MIN_SHARE)
        busy = &dx->findings[j];
    if (busy && !dx->findings[0].fix_first)
      dx->verdict = busy->class_id;
    else if (!nothing_to_fix && !(dx->nfindings && dx->findings[0].fix_first))
      dx->verdict = "unexplained";
    gw_diagnosis_cap_shares(dx);
    return;
  }
  /* the measured class leads, after a fault to fix first */
  for (int j = 0; j < dx->nfindings; j++)
    if (strcmp(dx->findings[j].class_id, MEASURED_CLASSES[best]) == 0) {
      int to = 0;
      while (to < j && dx->findings[to].fix_first)
        to++;
      struct gw_finding keep = dx->findings[j];
      memmove(&dx->findings[to + 1], &dx->findings[to], (size_t)(j - to) * sizeof keep);
      dx->findings[to] = keep;
      break;
    }
  gw_diagnosis_cap_shares(dx);
  /* the measured class can lead the lost time yet stay under the share of
   * the active time a finding needs (a healthy loop's few % of idle): with
   * no finding at all the rules' verdict ("none") stands */
  if (dx->nfindings > 0)
    dx->verdict = dx->findings[0].class_id;
}
