/* The host cannot prepare batches as fast as the GPU eats them. */
#include <math.h>

#include "analysis/confidence_share.h"
#include "analysis/compile_shapes.h"
#include "analysis/rules.h"
#include "analysis/rule_signals.h"
#include "analysis/thresholds.h"

/* With the Python hook on and no DataLoader seen, a busy core beside an
 * idle GPU is still the loop making its own batches (a generator, numpy,
 * a fetch in the loop) when the steps look like it: making a batch costs
 * about the same every step, so the steps are even (step-time CV under
 * thresholds.c step_jitter_cv), where periodic work (evaluation,
 * checkpoints, logging) gathers in a few of them; and the GPU works less
 * than half of a typical step, the host the rest. Nothing else may show in
 * the host's time: no period in the GPU's activity, no allocations that
 * churn, no step time that follows the input shape, no recurring slow
 * steps, no compilation timed by the hook (those are schedule_shape's).
 * Where stack or thread samples measured what the thread did, they decide
 * instead (measured_verdict.c: "making the batch itself"). */
/* Changing shapes explain the host's time in the steps: the step time that
 * follows the input shape, allocations that churn, steps that mostly met a
 * new shape, or compilation timed by the hook (schedule_shape's signals). */
static int shapes_explain_steps(const struct gw_diagnosis *dx) {
  return dx->step_breakdown.follows_shape || gw_rule_mem_churn(dx) || gw_steps_mostly_new_shapes(&dx->compile_shapes) ||
         gw_compile_shapes_lost_share(&dx->compile_shapes) > 0;
}

static int loop_makes_batches(const struct gw_rule_input *in) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  const struct gw_step_split *typical = &b->kinds[GW_STEP_KIND_TYPICAL];
  if (dx->measured || !b->found || isnan(b->step_cv) || b->step_cv >= gw_thr.step_jitter_cv ||
      isnan(typical->gpu_busy_s) || isnan(typical->wall_s) || typical->gpu_busy_s >= 0.5 * typical->wall_s)
    return 0;
  /* Steps that mostly met an input shape never seen before spend their host
   * time planning, tuning and allocating for it as much as making the batch
   * (the launch side discounts the same steps: gw_repeated_shape_share), and
   * the busy core cannot tell the two apart. */
  if (b->recurring || shapes_explain_steps(dx))
    return 0;
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->profiles[i].period.found)
      return 0;
  return 1;
}

/* A training loop, with the Python hook's steps and no DataLoader measured,
 * whose launching threads sat off their core while the GPU idled, in every
 * step rather than in a few: the loop blocked on something that is neither
 * its GPU nor its own CPU work. In one process that is what it fetches each
 * step: a batch from its own threads, a socket or a store (latency-bound),
 * which the hook cannot see as a DataLoader. Where thread or stack samples
 * measured the wait, they decide instead (measured_verdict.c). Not when
 * other waits explain the same picture: a peer in a distributed job, an
 * optimizer kept in host memory, periodic work (recurring slow steps that
 * are not a loader's rounds), new shapes, churning allocations or
 * compilation. Launching threads at or above BLOCKED_LAUNCH_MAX_CORES are
 * not blocked for most of the step (the launching itself may be what holds
 * the GPU back: launch_overhead's matter).
 * Returns the share of the typical step's GPU-idle part in which the
 * launching threads were off their core too, at the least: the GPU idle
 * for (1 - busy / step) of it and the threads off for (1 - their CPU in
 * cores), so both were for their sum less one step. 0 where the loop is not
 * such a loop or either is unmeasured. */
#define BLOCKED_LAUNCH_MAX_CORES 0.5
static double loop_blocked_idle_frac(const struct gw_rule_input *in) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  const struct gw_step_split *t = &b->kinds[GW_STEP_KIND_TYPICAL];
  if (dx->measured || !b->found || isnan(b->launch_cpu_cores) || b->launch_cpu_cores >= BLOCKED_LAUNCH_MAX_CORES ||
      isnan(t->gpu_busy_s) || isnan(t->wall_s) || t->wall_s <= 0)
    return 0;
  if ((b->recurring && !b->fetch_rhythm) || shapes_explain_steps(dx) || gw_rule_host_offload(dx) ||
      gw_rule_distributed(in))
    return 0;
  double gpu_idle = 1 - fmin(1, t->gpu_busy_s / t->wall_s);
  double blocked = gpu_idle - b->launch_cpu_cores;
  if (blocked <= 0)
    return 0;
  /* Other threads of the process busy for as much of a core as the loop was
   * blocked: a running Python thread holds the interpreter lock, which the
   * loop may have waited for instead, whatever that thread did (a metrics
   * logger as much as a decoder): schedule_shape's busy-thread clause
   * weighs that, and only samples name the thread's work. */
  double helpers = dx->host.other_threads_med_pct / 100;
  if (!isnan(helpers) && helpers >= blocked)
    return 0;
  return blocked / gpu_idle;
}

int gw_rule_input_pipeline(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_diagnosis *dx = in->dx;
  const struct gw_host_profile *h = &dx->host;
  const struct gw_gpu_profile *p = &dx->profiles[0];
  double other_ns = dx->total.row_ns[GW_ROW_IDLE_OTHER];
  double input_ns = dx->total.row_ns[GW_ROW_IDLE_INPUT];
  int prepares = gw_rule_main_prepares_data(dx);
  const struct gw_gpu_profile *churn = gw_rule_mem_churn(dx);
  /* The main process busy on one core while nothing reaches the GPU: with
   * no loader workers that is data preparation in the training process
   * (with workers it would be waiting for them, not busy),
   * unless allocations change every step (then shapes are re-planned, a
   * schedule_shape matter), and certainly so when it also runs CPU tensor
   * work on several cores. */
  int workers = h->has_workers && !isnan(h->workers_med) && h->workers_med >= 1;
  /* the time the loop spent in DataLoader.__next__, measured in the process
   * by the Python hook: the direct evidence that steps wait for data */
  const struct gw_step_process *sp = dx->steps.nprocs > 0 ? &dx->steps.procs[0] : NULL;
  double wait = sp ? sp->data_wait_share : NAN;
  int waits_for_data = !isnan(wait) && wait >= gw_thr.finding_min_share;
  /* One core busy with no kernel running is data preparation only where
   * nothing says otherwise: not when the hook measured the loop hardly ever
   * waiting for data (below the share a finding needs: then the host is
   * compiling, planning or computing something else) or saw no DataLoader
   * at all (nothing shows data being made), and not beside an
   * optimizer kept in host memory (schedule_shape), and not in a
   * distributed job, whose ranks spin a core while they wait in a collective
   * or a stream sync (NCCL's and CUDA's default busy-wait): there one busy
   * core beside an idle GPU is what waiting for a peer looks like. CPU
   * tensor work on several cores without loader workers stays the main
   * process's data preparation (prepares). */
  int hook_no_wait = (!isnan(wait) && !waits_for_data) || (h->no_dataloader && !loop_makes_batches(in));
  int distributed = gw_rule_distributed(in);
  /* When the loop measured its waits, the ledger's input row already holds
   * them, and host work outside them is not the loader's. */
  int waits_measured = !isnan(wait);
  /* Host work in dips that write a checkpoint's volume to disk is saving
   * state (schedule_shape), not making batches: data is read, not written. */
  /* The main thread busy far beyond the autograd thread that launches the
   * backward is not launching (gw_rule_main_not_launching): with no loader
   * and no peer to spin on, the loop's own host work is making the batch,
   * whether or not the hook saw a DataLoader. */
  int not_launching = !churn && !distributed && gw_rule_main_not_launching(dx);
  /* and where the main thread's CPU beside the autograd thread's says it
   * was launching, its busy core is the launches', not a batch's */
  int launching = gw_rule_main_launching(dx);
  int host_is_input = !workers && !gw_rule_host_offload(dx) && !waits_measured && !h->dip_writes_checkpoint &&
                      (prepares || not_launching || (!churn && !hook_no_wait && !distributed && !launching));
  /* The host's work before the GPU first ran busy is set-up (the model
   * built, the first batch made, kernels compiled), done once: a loop starved
   * by its input keeps the GPU from ever running busy, or starves it again
   * after, which the rest of the span holds. */
  double host_input_ns = dx->total.host_busy_ns - dx->total.host_busy_lead_ns;
  if (host_is_input)
    input_ns += host_input_ns;
  double share = gw_rule_share(dx, input_ns);
  /* the recurring slow steps of a parallel loader's rounds, and their time
   * that the ledger left unclaimed */
  const struct gw_step_breakdown *b = &dx->step_breakdown;
  double rhythm_ns = b->fetch_rhythm ? fmin(other_ns, b->extra_s * 1e9) : 0;
  double blocked_share = waits_measured ? 0 : gw_rule_share(dx, other_ns) * loop_blocked_idle_frac(in);
  int low_power = !isnan(p->power_frac) && p->power_frac < gw_thr.low_power_frac;
  int main_busy = h->has_main && h->main_busy_frac >= 0.5;
  double conf;
  if (share >= gw_thr.finding_min_share) {
    conf = 0.5;
    if (h->has_workers && h->workers_saturated_frac >= 0.3)
      conf += 0.2;
    if (prepares)
      conf += 0.2;
    if (h->has_disk && h->disk_busy_frac >= 0.3)
      conf += 0.1;
    if (low_power)
      conf += 0.1;
    if (p->pcie_rx_is_input)
      conf += 0.2;
    if (dx->steps.n >= 3 && !isnan(dx->steps.cv) && dx->steps.cv >= gw_thr.step_jitter_cv)
      conf += 0.05;
    if (waits_for_data)
      conf += 0.2;
    if (not_launching && !prepares)
      conf += 0.1;
    if (prepares)
      gw_evidence(f, "main_prepares_data", -1, p->active_start_ns, p->active_end_ns,
                  GW_NUM("cpu_threshold", GW_UNIT_PCT, gw_thr.main_multicore_cpu_pct),
                  GW_NUM("multicore_share", GW_UNIT_FRACTION, h->main_multicore_frac));
    else if (not_launching && host_is_input)
      gw_evidence(f, "main_not_launching", -1, p->active_start_ns, p->active_end_ns,
                  GW_NUM("ratio", GW_UNIT_RATIO, h->main_per_backward_cpu),
                  GW_NUM("max", GW_UNIT_RATIO, gw_thr.main_per_backward_max),
                  GW_NUM("saturated_share", GW_UNIT_FRACTION,
                         isnan(h->main_thread_busy_frac) ? h->main_busy_frac : h->main_thread_busy_frac));
    else if (host_is_input && gw_rule_share(dx, host_input_ns) >= gw_thr.finding_min_share)
      gw_evidence(f, "host_busy_share", -1, p->active_start_ns, p->active_end_ns,
                  GW_NUM("share", GW_UNIT_FRACTION, gw_rule_share(dx, host_input_ns)));
  } else if (b->fetch_rhythm && !distributed && !waits_measured && !dx->measured &&
             gw_rule_share(dx, rhythm_ns) >= gw_thr.finding_min_share) {
    /* The loop waits once per round of batches fetched in parallel
     * (step_breakdown.h, GW_FETCH_RHYTHM_MAX_STEPS): a loader of the
     * program's own (threads, a queue) whose fetches take longer than a
     * round of steps. Its waits are the recurring slow steps' time above a
     * typical step, within the idle time no other row claims. The hook sees
     * no DataLoader in such a loader, so without stack or thread samples
     * (which measure what the thread waited in: measured_verdict.c) the
     * steps' rhythm is the only measure of it. */
    share = gw_rule_share(dx, rhythm_ns);
    conf = 0.5;
    gw_evidence(f, "steps_fetch_rhythm", -1, 0, 0, GW_NUM("period_steps", GW_UNIT_COUNT, b->period_steps),
                GW_NUM("count", GW_UNIT_COUNT, b->count), GW_NUM("wait", GW_UNIT_S, b->extra_s / b->count),
                GW_NUM("round", GW_UNIT_S, b->period_s));
  } else if (!main_busy && gw_rule_share(dx, other_ns) >= gw_thr.finding_min_share && h->has_main && workers &&
             !waits_measured) {
    /* GPU idle time no signal explains, a main process that is not
     * saturated (it waits) and a loader whose workers are not busy: the
     * workers wait on something (a network file system, an object store),
     * so the data side is the first suspect. The ledger measures the idle
     * time tick by tick, so neither the run's power nor a share above the
     * one every finding needs is asked for: a job that also computes part
     * of the time (power near half the limit) waits for its data all the
     * same. Not without a loader: a process with no workers and no data
     * wait that leaves the GPU idle waits for something else (requests to
     * serve, a peer, a sleep); nor when the hook measured the loop's waits
     * (the ledger's input row holds them). */
    share = gw_rule_share(dx, other_ns);
    conf = 0.4;
    gw_finding_add_evidence(f, "host_waits", -1, 0, 0, 0, NULL);
  } else if (blocked_share >= gw_thr.finding_min_share) {
    /* The idle time no signal explains, in the part of it the steps show the
     * launching threads off their core as well: the loop's wait for what it
     * fetches (loop_blocked_idle_frac). */
    const struct gw_step_split *t = &b->kinds[GW_STEP_KIND_TYPICAL];
    share = blocked_share;
    conf = 0.4;
    gw_evidence(f, "loop_blocks_each_step", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("launch_cpu", GW_UNIT_CORES, b->launch_cpu_cores),
                GW_NUM("gpu_idle_share", GW_UNIT_FRACTION, 1 - t->gpu_busy_s / t->wall_s),
                GW_NUM("step", GW_UNIT_MS, t->wall_s * 1e3));
  } else {
    return 0;
  }
  if (dx->total.sm_from_util)
    conf *= gw_thr.no_gpm_conf_factor;
  f->share_of_active = share;
  f->confidence = conf > 0.95 ? 0.95 : conf;

  if (isnan(p->sm_med_pct)) /* e.g. an imported trace: no GPM counters */
    gw_evidence(f, "input_wait_share", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("share", GW_UNIT_FRACTION, share));
  else
    gw_evidence(f, "input_wait_share_sm", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("share", GW_UNIT_FRACTION, share), GW_NUM("sm_active_median", GW_UNIT_PCT, p->sm_med_pct));
  if (h->has_workers)
    gw_evidence(f, "loader_workers", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("workers", GW_UNIT_COUNT, h->workers_med),
                GW_NUM("busiest_worker_cpu_median", GW_UNIT_PCT, h->worker_cpu_max_med_pct),
                GW_NUM("saturated_cpu_threshold", GW_UNIT_PCT, gw_thr.worker_saturated_cpu_pct),
                GW_NUM("saturated_share", GW_UNIT_FRACTION, h->workers_saturated_frac));
  else if (!isnan(h->workers_seen_med) && h->workers_seen_med >= 1)
    /* counted but never measured: each lived too briefly for a CPU rate */
    gw_evidence(f, "loader_workers_unmeasured", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("workers", GW_UNIT_COUNT, h->workers_seen_med));
  else if (h->has_main) /* only a recording that followed the processes can say none were there */
    gw_finding_add_evidence(f, "no_loader_workers", -1, 0, 0, 0, NULL);
  if (h->has_main)
    gw_evidence(f, h->main_busy_frac < 0.5 ? "main_process_waits" : "main_process_cpu", -1, p->active_start_ns,
                p->active_end_ns, GW_NUM("cpu_median", GW_UNIT_PCT, h->main_cpu_med_pct),
                GW_NUM("saturated_share", GW_UNIT_FRACTION, h->main_busy_frac));
  if (h->has_disk && (h->disk_busy_frac > 0 || h->disk_util_p90_pct >= gw_thr.disk_busy_util_pct / 2))
    gw_evidence(f, "disk_busy", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("util_p90", GW_UNIT_PCT, h->disk_util_p90_pct),
                GW_NUM("busy_util_threshold", GW_UNIT_PCT, gw_thr.disk_busy_util_pct),
                GW_NUM("busy_share", GW_UNIT_FRACTION, h->disk_busy_frac),
                GW_NUM("iowait_median", GW_UNIT_PCT, h->iowait_med_pct));
  gw_rule_power_evidence(f, p, "power_median");
  if (p->pcie_rx_is_input)
    gw_evidence(f, "pcie_rx_high", p->gpu, p->active_start_ns, p->active_end_ns,
                GW_NUM("rx_median", GW_UNIT_GB_PER_S, p->pcie_rx_med_bps / 1e9));
  if (!isnan(h->corr_sm_worker) && h->corr_sm_worker < -0.2)
    gw_evidence(f, "sm_falls_with_worker_cpu", -1, p->active_start_ns, p->active_end_ns,
                GW_NUM("correlation", GW_UNIT_CORRELATION, h->corr_sm_worker));

  /* The worker count against the cores the recording measured: half the
   * physical cores leaves the rest to the main process, the pin-memory
   * thread and the OS; a loader already at or past that gains nothing from
   * more workers, its workers wait on something else (storage, decode). */
  int cores = h->physical_cores > 0 ? h->physical_cores : 0;
  double nworkers = h->has_workers && !isnan(h->workers_med) ? h->workers_med
                    : !isnan(h->workers_seen_med)            ? h->workers_seen_med
                                                             : 0;
  int room = cores >= 2 && nworkers < cores / 2;
  if (cores >= 2 && h->has_main)
    gw_evidence(f, room ? "loader_workers_room" : "loader_workers_enough", -1, 0, 0,
                GW_NUM("workers", GW_UNIT_COUNT, nworkers), GW_NUM("physical_cores", GW_UNIT_CORES, cores),
                GW_NUM(room ? "suggested_workers" : "half_cores", GW_UNIT_COUNT, cores / 2));
  if (room || cores < 2)
    gw_finding_fix(f, "input_pipeline.more_workers");
  gw_fixes(f, "input_pipeline.pin_memory", "input_pipeline.transforms_on_gpu");
  /* a batch the loop makes on its own core, with the disk not busy, waits on
   * no storage: shards on a local disk are no fix for it */
  int made_in_loop = host_is_input && (prepares || not_launching) && !(h->has_disk && h->disk_busy_frac >= 0.3);
  if (!made_in_loop)
    gw_finding_fix(f, "input_pipeline.local_shards");
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it;
 * its title and explain texts are worded in lib/render/class_text.c). */
const struct gw_rule gw_class_input_pipeline = {
    "input_pipeline",       GW_ROW_IDLE_INPUT,
    gw_rule_input_pipeline, GW_SIGNAL_HOST_CPU | GW_SIGNAL_STEPS | GW_SIGNAL_STACKS | GW_SIGNAL_KERNEL_TRACE,
    "sees_input_pipeline",  0};
