/* Fixed actions every N steps (eval, checkpoint, logging) or
 * changing shapes stall the GPU. */
#include <math.h>
#include <string.h>

#include "analysis/compile_shapes.h"
#include "analysis/rules.h"
#include "analysis/rule_signals.h"
#include "analysis/step_breakdown.h"
#include "analysis/thresholds.h"

static void add_offload_fixes(struct gw_finding *f) {
  gw_fixes(f, "schedule_shape.accumulate_micro_batches", "schedule_shape.overlap_cpu_optimizer",
           "schedule_shape.optimizer_on_gpu");
}

/* The share of the GPUs' idle time the samples charged to waits for the
 * next batch, or for the interpreter lock while a thread of the training
 * process ran (0 when nothing was sampled). */
static double sampled_data_wait_share(const struct gw_diagnosis *dx) {
  double wait_s = 0, idle_s = 0;
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->attr && dx->attr[i].source != GW_ATTR_NONE) {
      wait_s += dx->attr[i].rows[GW_PYACT_DATA_WAIT].seconds + dx->attr[i].rows[GW_CAUSE_LOCK_WAIT].seconds;
      idle_s += dx->attr[i].idle_s;
    }
  return idle_s > 0 ? wait_s / idle_s : 0;
}

/* The share of one core used by the training process's threads that launch
 * no kernels, when it is enough to explain idle_share, the GPU's idle time
 * that no signal claims; NAN otherwise. A running Python thread holds the
 * interpreter lock (handing it over every few milliseconds at most), so the
 * thread that launches the kernels waits for the lock while the GPU drains
 * its queue. A thread cannot hold the lock longer than it runs: its busy
 * share must be at least the idle share it is to explain (H200: a metrics
 * helper at 0.15 of a core cost the transformer 4% of its samples/s, at 0.3
 * to 0.8 of a core 13% to 58%, bench/RESULTS.md, "busy helper thread"). One process
 * on one GPU only: in a distributed job NCCL's proxy threads are busy by
 * design and hold no interpreter lock. */
static double helper_threads_core(const struct gw_rule_input *in, double idle_share) {
  const struct gw_diagnosis *dx = in->dx;
  double core = dx->host.other_threads_med_pct / 100;
  if (isnan(core) || idle_share <= 0 || core < idle_share || dx->ngpus != 1 || in->rec->world_size > 1)
    return NAN;
  /* the Python hook saw no training step and no DataLoader: the GPU may be
   * waiting for work that has not arrived (a server between requests), and
   * a thread can stall only a loop that had work to issue */
  if (in->rec->python_hook_enabled && in->rec->nsteps == 0 && dx->host.no_dataloader)
    return NAN;
  /* a main thread that kept its core busy most of the run held the lock
   * most of the time: a helper did not keep it waiting */
  if (!isnan(dx->host.main_thread_busy_frac) && dx->host.main_thread_busy_frac >= 0.5)
    return NAN;
  /* the samples saw the training thread wait for a batch while threads of
   * its own process fetched or computed it (idle_attribution.c, prefetch_at;
   * no loader processes), or for the interpreter lock those threads held
   * (waits_for_interpreter): those busy threads make the batches, and their
   * CPU is the input pipeline's, not a helper's doing other work */
  if (!dx->host.has_workers && sampled_data_wait_share(dx) >= gw_thr.finding_min_share)
    return NAN;
  /* A thread waiting for the lock is not running: the idle time it causes
   * falls while the launching threads are short of a core, the ledger's
   * idle: other. Where more of the idle time falls under a measured host
   * cause (launching threads saturated, input, syncs, periodic work), that
   * cause explains the idle time and the leftover is its tail. */
  static const int measured_idle_rows[] = {GW_ROW_IDLE_INPUT, GW_ROW_IDLE_LAUNCH, GW_ROW_IDLE_SYNC, GW_ROW_IDLE_COMM,
                                           GW_ROW_IDLE_PERIODIC};
  for (size_t i = 0; i < sizeof measured_idle_rows / sizeof measured_idle_rows[0]; i++)
    if (gw_rule_share(dx, dx->total.row_ns[measured_idle_rows[i]]) > idle_share)
      return NAN;
  return core;
}

static void add_helper_thread_fix(struct gw_finding *f) {
  gw_finding_fix(f, "schedule_shape.move_helper_thread");
}

/* The steps as evidence: marked by the program or estimated from activity,
 * and whether their spread has no period. */
static void add_steps_evidence(struct gw_finding *f, const struct gw_step_profile *st, int no_period) {
  static const char *const ids[2][2] = {{"steps_estimated", "steps_marked"},
                                        {"steps_estimated_no_period", "steps_marked_no_period"}};
  gw_evidence(f, ids[no_period != 0][st->from_table != 0], -1, 0, 0, GW_NUM("steps", GW_UNIT_COUNT, st->n),
              GW_NUM("step_median", GW_UNIT_S, st->median_s), GW_NUM("p90_over_p50", GW_UNIT_RATIO, st->p90_over_p50),
              GW_NUM("cv", GW_UNIT_RATIO, st->cv));
}

static void add_shape_fix(struct gw_finding *f) {
  gw_finding_fix(f, "schedule_shape.fixed_shapes");
}

/* Recompilations and first visits of new shapes, measured inside the program
 * by the Python hook: the time is known, not inferred from counters, so this
 * evidence stands on its own and comes before the rest. */
static int compile_shape_finding(const struct gw_compile_shapes *cs, double share, struct gw_finding *f) {
  int compile_lost = cs->ids_known ? cs->recompile_s > 0 : cs->later_compile_s > 0;
  f->share_of_active = share; /* of the step time, which spans the active time of a training run */
  f->confidence = compile_lost ? 0.85 : 0.6;
  if (cs->ids_known && cs->recompiles > 0)
    gw_evidence(f, "recompile_time", -1, 0, 0, GW_NUM("recompiles", GW_UNIT_COUNT, cs->recompiles),
                GW_NUM("recompile_time", GW_UNIT_S, cs->recompile_s),
                GW_NUM("share", GW_UNIT_FRACTION, cs->recompile_s / cs->step_total_s),
                GW_NUM("compile_time", GW_UNIT_S, cs->compile_s));
  else if (cs->later_compile_s > 0)
    gw_evidence(f, "compile_time_later", -1, 0, 0, GW_NUM("compile_time", GW_UNIT_S, cs->later_compile_s),
                GW_NUM("share", GW_UNIT_FRACTION, cs->later_compile_s / cs->step_total_s));
  if (cs->first_reason[0])
    gw_evidence(f, "recompile_reason", -1, 0, 0, GW_TEXT_VALUE("reason", cs->first_reason));
  if (cs->shape_known && !isnan(cs->first_visit_excess_s) && cs->first_visits > 0)
    gw_evidence(f, "shape_first_visits", -1, 0, 0, GW_NUM("shapes", GW_UNIT_COUNT, cs->nshapes),
                GW_NUM("first_visits", GW_UNIT_COUNT, cs->first_visits),
                GW_NUM("excess", GW_UNIT_S, cs->first_visit_excess_s),
                GW_NUM("revisit_median", GW_UNIT_S, cs->revisit_median_s),
                GW_NUM("share", GW_UNIT_FRACTION, cs->first_visit_excess_s / cs->step_total_s));
  else if (cs->shape_known && cs->first_visits > 0)
    gw_evidence(f, "shape_first_visits_only", -1, 0, 0, GW_NUM("shapes", GW_UNIT_COUNT, cs->nshapes),
                GW_NUM("first_visits", GW_UNIT_COUNT, cs->first_visits),
                GW_NUM("share", GW_UNIT_FRACTION, cs->first_visit_s / cs->step_total_s));
  const struct gw_shape_first_visit *sh = cs->shown;
  if (cs->nshown == 1)
    gw_evidence(f, "slowest_shapes_1", -1, 0, 0, GW_TEXT_VALUE("shape_1", sh[0].shape),
                GW_NUM("first_1", GW_UNIT_S, sh[0].first_s));
  else if (cs->nshown == 2)
    gw_evidence(f, "slowest_shapes_2", -1, 0, 0, GW_TEXT_VALUE("shape_1", sh[0].shape),
                GW_NUM("first_1", GW_UNIT_S, sh[0].first_s), GW_TEXT_VALUE("shape_2", sh[1].shape),
                GW_NUM("first_2", GW_UNIT_S, sh[1].first_s));
  else if (cs->nshown >= 3)
    gw_evidence(f, "slowest_shapes_3", -1, 0, 0, GW_TEXT_VALUE("shape_1", sh[0].shape),
                GW_NUM("first_1", GW_UNIT_S, sh[0].first_s), GW_TEXT_VALUE("shape_2", sh[1].shape),
                GW_NUM("first_2", GW_UNIT_S, sh[1].first_s), GW_TEXT_VALUE("shape_3", sh[2].shape),
                GW_NUM("first_3", GW_UNIT_S, sh[2].first_s));
  /* The fixes follow what changed: a tensor's size (dynamo's guard names it),
   * else a Python value dynamo guards on; without a compiler, the shapes. */
  int sizes = strstr(cs->first_reason, "size mismatch") || strstr(cs->first_reason, "stride mismatch") ||
              (!cs->first_reason[0] && cs->nshapes >= 2);
  if (compile_lost && sizes)
    gw_finding_fix(f, "schedule_shape.compile_dynamic");
  else if (compile_lost && cs->first_reason[0])
    gw_finding_fix(f, "schedule_shape.numbers_as_tensors");
  add_shape_fix(f);
  if (compile_lost)
    gw_finding_fix(f, "schedule_shape.log_recompiles");
  else
    gw_finding_fix(f, "schedule_shape.cudnn_benchmark_shapes");
  return 1;
}

/* A loader that keeps the loop waiting whatever its workers' CPU shows (a
 * loader bound by latency looks idle): worker processes feed the loop, the
 * launching thread waits more than half the time (it neither computes nor
 * re-plans) and the GPU loses more than half its active time (it waits for
 * data more than it works). Nothing on the host then works for the GPU
 * between batches: the steps, and the allocations between them, follow the
 * data's arrival. Read only where the program did not time its own waits for
 * data (the hook's steps take them out of the spread). */
static int loader_paced(const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  return h->has_workers && h->has_main && !isnan(h->main_busy_frac) && h->main_busy_frac < 0.5 && dx->active_ns > 0 &&
         dx->lost_ns >= 0.5 * dx->active_ns;
}

/* The hook measured every step's input and it kept one shape, with no
 * compile time: steps that spread are not shapes or recompiles. */
static int one_input_shape(const struct gw_diagnosis *dx) {
  const struct gw_compile_shapes *cs = &dx->compile_shapes;
  return cs->shape_known && cs->nshapes == 1 && !(cs->compile_s > 0);
}

/* What the GPU's periodic dips can have cost, bounded by the loop's own
 * steps: periodic work stalls the GPU by lengthening the steps it runs in,
 * so where the program's steps cover three or more of the dips' periods
 * (their own time, waits included), the time they spent above the median
 * step is the most any schedule cost. An uneven loop beating against the
 * GPU samples makes dips whose idle time is what paces the loop the rest
 * of the time (oos_numpy_prep: dips every 2.2 s over 15% of the active
 * time, steps 3.7% above their median). Only for dips two steps apart or
 * more: dips inside every step (a stall every 2 s in steps of 9 s) lengthen
 * none above the others. Returns share unchanged otherwise. */
static double dips_bounded_by_steps(const struct gw_diagnosis *dx, const struct gw_gpu_profile *pp, double share) {
  const struct gw_step_profile *st = &dx->steps;
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  double period_s = pp->period.period_s, span_s = 0; /* the steady steps' time */
  for (int k = 0; k < GW_STEP_NKINDS; k++)
    if (b->kinds[k].nsteps > 0 && !isnan(b->kinds[k].wall_s))
      span_s += (double)b->kinds[k].nsteps * b->kinds[k].wall_s;
  if (!st->from_table || !b->found || isnan(st->excess_share) || isnan(period_s) || isnan(b->step_median_s) ||
      period_s < 2 * b->step_median_s || span_s < GW_RECUR_MIN_COUNT * period_s)
    return share;
  return fmin(share, st->excess_share);
}

static int schedule_shape_holds(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  double compile_shape_share = gw_compile_shapes_lost_share(&dx->compile_shapes);
  if (compile_shape_share >= gw_thr.finding_min_share)
    return compile_shape_finding(&dx->compile_shapes, compile_shape_share, f);
  int shapes = 0; /* the evidence points at changing shapes, not periodic work */
  int helper = 0; /* a busy thread that launches nothing can explain the idle time */
  const struct gw_host_profile *h = &dx->host;
  const struct gw_step_profile *st = &dx->steps;
  const struct gw_gpu_profile *pp = NULL;
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->profiles[i].period.found && (!pp || dx->profiles[i].period.strength > pp->period.strength))
      pp = &dx->profiles[i];
  double share = gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_PERIODIC]);
  /* a loader that cannot keep up paces the steps: their spread and the
   * allocations between them follow the input, not the shapes; so does a
   * loop that waits once per round of a parallel loader's fetches */
  const struct gw_step_process *sp = st->nprocs > 0 ? &st->procs[0] : NULL;
  /* the loop measured its waits for data inside the program: the steps'
   * spread is then net of them (profile_steps) */
  int wait_known = sp && !isnan(sp->data_wait_share);
  int loader_bound = (h->has_workers && h->workers_saturated_frac >= gw_thr.loader_bound_saturated_frac) ||
                     dx->step_breakdown.fetch_rhythm || (!wait_known && loader_paced(dx));
  /* an optimizer kept in host memory: the ledger counts the GPU's idle time
   * under the host's multi-core update as this class's (a host phase once
   * per optimizer step) */
  const struct gw_gpu_profile *off = gw_rule_host_offload(dx);
  /* the idle time no ledger row claims, and the helper threads that could */
  double idle_other = gw_rule_share(dx, dx->total.row_ns[GW_ROW_IDLE_OTHER]);
  double helper_core = helper_threads_core(in, idle_other);
  /* when the loop waited for data for a share a finding needs, the idle
   * time is the input's */
  int waits_for_data = wait_known && sp->data_wait_share >= gw_thr.finding_min_share;
  if (off && !pp && share >= gw_thr.finding_min_share) {
    /* two independent signals name the host work: several cores busy in
     * the training process while the GPU idles, and PCIe traffic both ways
     * in the amounts of a gradient download and a parameter upload */
    double conf = 0.6;
    /* the loop measured inside the program hardly ever waited for data: the
     * host phase is not the input's (below the share a finding needs) */
    if (wait_known && !waits_for_data)
      conf += 0.1;
    if (dx->total.sm_from_util)
      conf *= gw_thr.no_gpm_conf_factor;
    f->share_of_active = share;
    f->confidence = conf;
    gw_evidence(f, "host_optimizer_phase", off->gpu, off->active_start_ns, off->active_end_ns,
                GW_NUM("share", GW_UNIT_FRACTION, share), GW_NUM("cpu_median", GW_UNIT_PCT, h->main_cpu_med_pct),
                GW_NUM("rx_median", GW_UNIT_GB_PER_S, off->pcie_rx_med_bps / 1e9),
                GW_NUM("tx_median", GW_UNIT_GB_PER_S, off->pcie_tx_med_bps / 1e9));
    if (st->n >= 2)
      add_steps_evidence(f, st, 0);
    if (wait_known)
      gw_evidence(f, "data_wait_share", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, sp->data_wait_share),
                  GW_NUM("steps", GW_UNIT_COUNT, (double)sp->nsteps));
    add_offload_fixes(f);
    return 1;
  }
  /* an optimizer kept in host memory stalls every step alike: no step
   * stands above the others, so the steps bound nothing there */
  double dip_lost_share = share;
  if (pp && !off)
    share = dips_bounded_by_steps(dx, pp, share);
  if (pp && share >= gw_thr.finding_min_share) {
    double conf = 0.45 + 0.3 * fmin(1, pp->period.strength);
    if (!isnan(h->disk_write_dip_bps) && !isnan(h->disk_write_other_bps) &&
        h->disk_write_dip_bps > 2 * h->disk_write_other_bps + 1e6)
      conf += 0.1;
    if (dx->total.sm_from_util)
      conf *= gw_thr.no_gpm_conf_factor;
    f->share_of_active = share;
    f->confidence = fmin(conf, 0.95);
    if (!isnan(pp->period.period_steps))
      gw_evidence(f, "periodic_dips_steps", pp->gpu, pp->active_start_ns, pp->active_end_ns,
                  GW_NUM("period", GW_UNIT_S, pp->period.period_s),
                  GW_NUM("period_steps", GW_UNIT_COUNT, pp->period.period_steps),
                  GW_NUM("autocorrelation", GW_UNIT_CORRELATION, pp->period.strength));
    else
      gw_evidence(f, "periodic_dips", pp->gpu, pp->active_start_ns, pp->active_end_ns,
                  GW_NUM("period", GW_UNIT_S, pp->period.period_s),
                  GW_NUM("autocorrelation", GW_UNIT_CORRELATION, pp->period.strength));
    if (share < dip_lost_share)
      gw_evidence(f, "dip_time_bounded", pp->gpu, pp->active_start_ns, pp->active_end_ns,
                  GW_NUM("dip_tick_share", GW_UNIT_FRACTION, pp->dip_share),
                  GW_NUM("lost_share", GW_UNIT_FRACTION, dip_lost_share),
                  GW_NUM("steps_excess", GW_UNIT_FRACTION, share));
    else
      gw_evidence(f, "dip_time", pp->gpu, pp->active_start_ns, pp->active_end_ns,
                  GW_NUM("dip_tick_share", GW_UNIT_FRACTION, pp->dip_share),
                  GW_NUM("lost_share", GW_UNIT_FRACTION, share));
    if (!isnan(h->disk_write_dip_bps))
      gw_evidence(f,
                  h->disk_write_dip_bps > 2 * h->disk_write_other_bps + 1e6 ? "dip_disk_writes_checkpoint"
                                                                            : "dip_disk_writes",
                  -1, pp->active_start_ns, pp->active_end_ns,
                  GW_NUM("write_in_dips", GW_UNIT_MB_PER_S, h->disk_write_dip_bps / 1e6),
                  GW_NUM("write_otherwise", GW_UNIT_MB_PER_S, h->disk_write_other_bps / 1e6));
    if (off) {
      /* the dips are the host's optimizer step: say so, and its fixes */
      gw_evidence(f, "host_optimizer_phase", off->gpu, off->active_start_ns, off->active_end_ns,
                  GW_NUM("share", GW_UNIT_FRACTION, share), GW_NUM("cpu_median", GW_UNIT_PCT, h->main_cpu_med_pct),
                  GW_NUM("rx_median", GW_UNIT_GB_PER_S, off->pcie_rx_med_bps / 1e9),
                  GW_NUM("tx_median", GW_UNIT_GB_PER_S, off->pcie_tx_med_bps / 1e9));
      add_offload_fixes(f);
      return 1;
    }
  } else if (h->dip_writes_checkpoint && !loader_bound && !waits_for_data &&
             gw_rule_share(dx, dx->total.host_busy_ns) >= gw_thr.finding_min_share) {
    /* Stalls too few for a period (one or two checkpoints in the run) in
     * which the GPU idles while the training process is busy and the disk
     * takes a checkpoint's volume: the host time is the checkpoint's. */
    share = gw_rule_share(dx, dx->total.host_busy_ns);
    double conf = 0.5;
    if (dx->total.sm_from_util)
      conf *= gw_thr.no_gpm_conf_factor;
    f->share_of_active = share;
    f->confidence = conf;
    gw_evidence(f, "checkpoint_stall", -1, 0, 0, GW_NUM("share", GW_UNIT_FRACTION, share),
                GW_NUM("write_in_dips", GW_UNIT_MB_PER_S, h->disk_write_dip_bps / 1e6),
                GW_NUM("write_otherwise", GW_UNIT_MB_PER_S, h->disk_write_other_bps / 1e6));
    if (st->n >= 2)
      add_steps_evidence(f, st, 0);
  } else if (gw_rule_mem_churn(dx) && !loader_bound) {
    shapes = 1;
    /* Allocations that change from step to step: shapes vary. The time the
     * host spends busy with almost no kernel running is re-planning for the
     * new shapes (algorithm searches, allocator work, recompiles) unless the
     * process is known to prepare its own data; the time above the median
     * step is the other measure of what uneven steps cost. */
    const struct gw_gpu_profile *c = gw_rule_mem_churn(dx);
    /* When the process also prepares its own data, the same host time is
     * shared with input_pipeline and cannot be split from counters: keep
     * the time, lower the confidence. */
    int shared = gw_rule_main_prepares_data(dx);
    double host = gw_rule_share(dx, dx->total.host_busy_ns);
    /* the time above the median step counts where the GPU idled in it (below) */
    double excess =
        isnan(st->excess_share) ? 0 : fmin(st->excess_share, gw_rule_share(dx, gw_ledger_idle_ns(&dx->total)));
    share = fmax(host, excess);
    if (share < gw_thr.finding_min_share)
      return 0;
    double conf = shared ? 0.35 : host > excess ? 0.6 : 0.45;
    if (st->n >= 5 && !isnan(st->cv) && st->cv >= gw_thr.step_jitter_cv)
      conf += 0.1;
    f->share_of_active = share;
    f->confidence = conf;
    gw_evidence(f, "memory_churn", c->gpu, c->active_start_ns, c->active_end_ns,
                GW_NUM("rises", GW_UNIT_COUNT, c->mem_rises), GW_NUM("falls", GW_UNIT_COUNT, c->mem_falls),
                GW_NUM("changes_per_min", GW_UNIT_PER_MIN, c->mem_changes_per_min));
    if (host > 0)
      gw_evidence(f, shared ? "shape_replanning_shared" : "shape_replanning", -1, c->active_start_ns, c->active_end_ns,
                  GW_NUM("share", GW_UNIT_FRACTION, host));
    if (st->n >= 2)
      add_steps_evidence(f, st, 0);
  } else if (!loader_bound && st->n >= (st->from_table ? 5 : gw_thr.step_jitter_min_estimated) &&
             /* the spread is of the steps' own work (profile_steps takes each
              * measured wait for data out: waits that vary are the input's) */
             (st->cv >= gw_thr.step_jitter_cv || st->p90_over_p50 >= gw_thr.step_jitter_p90_p50) &&
             /* with one input shape, occasional work (an evaluation, a
              * checkpoint, a log flush every N steps) still shows as a few
              * steps far above the rest, nine in ten near the median; a
              * spread over most steps without a busy helper thread is what
              * the counters cannot name (a fetch that waits on a remote store,
              * inline or in threads, varies as much) */
             !(one_input_shape(dx) && (isnan(helper_core) || waits_for_data) &&
               st->p90_over_p50 >= gw_thr.step_jitter_p90_p50)) {
    /* Spread without a period: shapes or recompiles, or a busy helper
     * thread working on its own clock. The time above the median step is
     * what uneven steps cost. Input stalls also make steps uneven, so this
     * stays a weak finding on its own. */
    helper = !isnan(helper_core) && !waits_for_data;
    shapes = !helper;
    /* every step is slowed when the helper holds the lock often: the time
     * above the median step is then less than the idle time it causes */
    share = helper ? fmax(st->excess_share, idle_other) : st->excess_share;
    /* Time above the median step is lost only where the GPU idled in it: a
     * step that is long because its input is large keeps the GPU busy for
     * longer (more work, not a stall). The ledger's idle rows bound what
     * the spread can have cost. */
    share = fmin(share, gw_rule_share(dx, gw_ledger_idle_ns(&dx->total)));
    if (share < gw_thr.finding_min_share)
      return 0;
    f->share_of_active = share;
    f->confidence = st->from_table ? 0.4 : 0.3;
    add_steps_evidence(f, st, 1);
  } else if (!loader_bound && !waits_for_data && !isnan(helper_core) && idle_other >= gw_thr.finding_min_share) {
    /* Even steps, each slowed alike: a helper that takes the interpreter
     * lock every few milliseconds stretches every step, so no spread shows.
     * The counters cannot see the lock: a weak finding that names the
     * thread's CPU and the test that decides. */
    helper = 1;
    share = idle_other;
    f->share_of_active = share;
    f->confidence = 0.35;
    if (st->n >= 2)
      add_steps_evidence(f, st, 0);
  } else {
    return 0;
  }
  if (helper)
    gw_evidence(f, "helper_threads_busy", -1, 0, 0, GW_NUM("core", GW_UNIT_CORES, helper_core),
                GW_NUM("idle_share", GW_UNIT_FRACTION, idle_other));
  /* The fix that matches the evidence comes first: the busy helper thread,
   * shapes when allocations churn or steps are uneven without a period,
   * periodic work otherwise. */
  if (helper)
    add_helper_thread_fix(f);
  if (shapes)
    add_shape_fix(f);
  /* periodic work's fixes, unless the evidence is a helper thread's */
  if (!helper) {
    gw_fixes(f, "schedule_shape.eval_less_often", "schedule_shape.async_checkpoint",
             "schedule_shape.background_logging");
  }
  if (!shapes)
    add_shape_fix(f);
  return 1;
}

/* The steps decomposed (analysis/step_breakdown.h) as evidence of a finding
 * the signals above made: slow steps that recur every N steps with what the
 * thread did in them, and step times that follow the input shape. They add
 * evidence only; whether the class holds and its share are decided above. */
static void add_step_breakdown_evidence(const struct gw_step_breakdown *b, struct gw_finding *f) {
  if (!b->found)
    return;
  if (b->recurring && b->activity < 0) /* no stack samples and no measured data wait in them */
    gw_evidence(f, "periodic_slow_steps_unsampled", b->gpu, 0, 0, GW_NUM("count", GW_UNIT_COUNT, b->count),
                GW_NUM("period_steps", GW_UNIT_COUNT, b->period_steps), GW_NUM("period", GW_UNIT_S, b->period_s),
                GW_NUM("extra", GW_UNIT_S, b->extra_s));
  else if (b->recurring && b->frame_text[0])
    gw_evidence(f, "periodic_slow_steps", b->gpu, 0, 0, GW_NUM("count", GW_UNIT_COUNT, b->count),
                GW_NUM("period_steps", GW_UNIT_COUNT, b->period_steps), GW_NUM("period", GW_UNIT_S, b->period_s),
                GW_NUM("extra", GW_UNIT_S, b->extra_s), GW_PHRASE("activity", gw_idle_cause_phrase(b->activity)),
                GW_TEXT_VALUE("frame", b->frame_text));
  else if (b->recurring)
    gw_evidence(f, "periodic_slow_steps_no_frame", b->gpu, 0, 0, GW_NUM("count", GW_UNIT_COUNT, b->count),
                GW_NUM("period_steps", GW_UNIT_COUNT, b->period_steps), GW_NUM("period", GW_UNIT_S, b->period_s),
                GW_NUM("extra", GW_UNIT_S, b->extra_s), GW_PHRASE("activity", gw_idle_cause_phrase(b->activity)));
  if (b->follows_shape)
    gw_evidence(f, "step_time_follows_shape", b->gpu, 0, 0, GW_NUM("shapes", GW_UNIT_COUNT, b->nshapes),
                GW_NUM("explained", GW_UNIT_FRACTION, b->shape_explained),
                GW_NUM("correlation", GW_UNIT_CORRELATION, b->shape_corr), GW_NUM("cv", GW_UNIT_RATIO, b->step_cv));
}

int gw_rule_schedule_shape(const struct gw_rule_input *in, struct gw_finding *f) {
  if (!schedule_shape_holds(in, f))
    return 0;
  add_step_breakdown_evidence(&in->dx->step_breakdown, f);
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
const struct gw_rule gw_class_schedule_shape = {
    "schedule_shape",       GW_ROW_IDLE_PERIODIC,
    gw_rule_schedule_shape, GW_SIGNAL_GPU_ACTIVITY | GW_SIGNAL_STEPS | GW_SIGNAL_KERNEL_TRACE,
    "sees_schedule_shape",  2};
