/* The host cannot prepare batches as fast as the GPU eats them. */
#include <math.h>

#include "analysis/rules.h"
#include "analysis/thresholds.h"
#include "core/i18n.h"

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
  int host_is_input = !workers && (prepares || !churn);
  if (host_is_input)
    input_ns += dx->total.host_busy_ns;
  double share = gw_rule_share(dx, input_ns);
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
    if (prepares)
      gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                          _("no loader workers, and the training process ran above %.0f%% of one core on %.0f%% of "
                            "samples while the GPU idled: it prepares batches itself"),
                          gw_thr.main_multicore_cpu_pct, h->main_multicore_frac * 100);
    else if (host_is_input && gw_rule_share(dx, dx->total.host_busy_ns) >= gw_thr.finding_min_share)
      gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                          _("%.0f%% of active time the training process kept a core busy while almost no kernel ran: "
                            "host-side work, most likely preparing data (confirm with the fixed-batch test)"),
                          gw_rule_share(dx, dx->total.host_busy_ns) * 100);
  } else if (!main_busy && low_power && gw_rule_share(dx, other_ns) >= 0.2 && h->has_main) {
    /* Low SM, low power and a waiting main process point at the
     * data side first, even when no worker or disk shows it (reads from a
     * network file system, a slow collate in the main process, sleeps). */
    share = gw_rule_share(dx, other_ns);
    conf = 0.4;
    gw_finding_evidence(f, 0, 0,
                        _("no loader worker or disk is saturated, but the GPU sits idle while the main process "
                          "waits: the host side is the first suspect (confirm with the fixed-batch test)"));
  } else {
    return 0;
  }
  if (dx->total.sm_from_util)
    conf *= gw_thr.no_gpm_conf_factor;
  f->share_of_active = share;
  f->confidence = conf > 0.95 ? 0.95 : conf;

  if (isnan(p->sm_med_pct)) /* e.g. an imported trace: no GPM counters */
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("GPU idle and waiting for input %.0f%% of active time"), share * 100);
  else
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("GPU idle and waiting for input %.0f%% of active time; SM activity median %.1f%%"),
                        share * 100, p->sm_med_pct);
  if (h->has_workers)
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("%.0f data-loader worker process(es); busiest worker median %.0f%% of one core; a worker "
                          "saturated (>= %.0f%%) %.0f%% of the time"),
                        h->workers_med, h->worker_cpu_max_med_pct, gw_thr.worker_saturated_cpu_pct,
                        h->workers_saturated_frac * 100);
  else if (h->has_main) /* only a recording that followed the processes can say none were there */
    gw_finding_evidence(f, 0, 0, _("no data-loader worker processes: all loading runs in the main process"));
  if (h->has_main)
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        h->main_busy_frac < 0.5
                            ? _("main process median %.0f%% of one core (saturated %.0f%% of the time): it waits for "
                                "data")
                            : _("main process median %.0f%% of one core (saturated %.0f%% of the time)"),
                        h->main_cpu_med_pct, h->main_busy_frac * 100);
  if (h->has_disk && (h->disk_busy_frac > 0 || h->disk_util_p90_pct >= gw_thr.disk_busy_util_pct / 2))
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("disk util p90 %.0f%%, busy (>= %.0f%%) %.0f%% of the time; iowait median %.1f%%"),
                        h->disk_util_p90_pct, gw_thr.disk_busy_util_pct, h->disk_busy_frac * 100, h->iowait_med_pct);
  if (!isnan(p->power_frac))
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns, _("power median %.0f W of %.0f W (%.0f%%)"),
                        p->power_med_w, p->power_limit_w, p->power_frac * 100);
  if (p->pcie_rx_is_input)
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("PCIe receive median %.1f GB/s while SM activity is low: host-to-device copies dominate"),
                        p->pcie_rx_med_bps / 1e9);
  if (!isnan(h->corr_sm_worker) && h->corr_sm_worker < -0.2)
    gw_finding_evidence(f, p->active_start_ns, p->active_end_ns,
                        _("SM activity falls when worker CPU rises (correlation %.2f)"), h->corr_sm_worker);

  /* The worker count against the cores the recording measured: half the
   * physical cores leaves the rest to the main process, the pin-memory
   * thread and the OS; a loader already at or past that gains nothing from
   * more workers, its workers wait on something else (storage, decode). */
  int cores = h->physical_cores > 0 ? h->physical_cores : 0;
  double nworkers = h->has_workers && !isnan(h->workers_med) ? h->workers_med : 0;
  int room = cores >= 2 && nworkers < cores / 2;
  if (cores >= 2 && h->has_main)
    gw_finding_evidence(f, 0, 0,
                        room ? _("%.0f loader worker(s) on %d physical cores: about %d would use half the cores")
                             : _("%.0f loader worker(s) on %d physical cores: already half the cores or more (%d), so "
                                 "more workers will not help; find what each worker waits on (storage, decode)"),
                        nworkers, cores, cores / 2);
  if (room || cores < 2)
    gw_finding_fix(
        f, _("DataLoader(num_workers = about half the physical cores, persistent_workers=True, prefetch_factor=4)"),
        _("more worker processes prepare batches in parallel; persistent workers skip the restart each epoch"));
  gw_finding_fix(f, _("DataLoader(pin_memory=True) and .to(device, non_blocking=True)"),
                 _("pinned host memory lets copies run asynchronously instead of through a staging buffer"));
  gw_finding_fix(f, _("move heavy transforms (decode, resize, augmentation) to the GPU"),
                 _("the GPU does in microseconds what a CPU worker does in milliseconds"));
  gw_finding_fix(f, _("store the dataset locally or stream it in shards (WebDataset)"),
                 _("sequential reads of large shards avoid slow random I/O"));
  return 1;
}

/* The registry's row of this class (lib/analysis/rule_registry.h lists it). */
const struct gw_rule gw_class_input_pipeline = {
    "input_pipeline", N_("The input pipeline does not keep the GPU fed"), "2.1", GW_ROW_IDLE_INPUT,
    gw_rule_input_pipeline,
    /* xgettext:no-c-format */
    N_("low SM activity and low power; GPU idle between steps; data-loader worker processes each near 100% of a core, "
       "or disk util high / iowait; main process waiting, not saturated; step times uneven; high PCIe receive with "
       "pageable copies"),
    N_("replace the loader with one cached batch fed in a loop: if SM activity jumps, the input side is the cause; "
       "watch worker CPU (htop) and disk (iostat -x 1) during the dips"),
    N_("num_workers near half the physical cores; persistent_workers=True; prefetch_factor 2-4; pin_memory=True; move "
       "heavy transforms to the GPU; stream large datasets (WebDataset) instead of random reads")};
