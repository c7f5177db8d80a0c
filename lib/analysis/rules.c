#include "rules.h"

#include <math.h>
#include <string.h>

#include "analysis/thresholds.h"
#include "core/i18n.h"

/* The six classes: input, launch, batch, multi-GPU, hardware, schedule. The explain texts are the quick
 * reference `gpuwhy explain` prints. */
const struct gw_rule gw_rules[] = {
    {"input_pipeline", N_("The input pipeline does not keep the GPU fed"), "2.1", gw_rule_input_pipeline,
     /* xgettext:no-c-format */
     N_("low SM activity and low power; GPU idle between steps; data-loader worker processes each near 100% of a core, "
        "or disk util high / iowait; main process waiting, not saturated; step times uneven; high PCIe receive with "
        "pageable copies"),
     N_("replace the loader with one cached batch fed in a loop: if SM activity jumps, the input side is the cause; "
        "watch worker CPU (htop) and disk (iostat -x 1) during the dips"),
     N_("num_workers near half the physical cores; persistent_workers=True; prefetch_factor 2-4; pin_memory=True; move "
        "heavy transforms to the GPU; stream large datasets (WebDataset) instead of random reads")},
    {"small_batch", N_("Batches are too small to fill the GPU"), "2.2", gw_rule_small_batch,
     N_("GPU-Util high but SM activity and occupancy low; most device memory free; main thread not saturated; power "
        "moderate; allocator churn with changing shapes"),
     N_("sweep the batch size (gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}): throughput rising with the "
        "batch means the work is too fine-grained"),
     /* xgettext:no-c-format */
     N_("raise the batch size (keep 20-30% memory headroom); fix input shapes (pad); mixed precision; activation "
        "checkpointing to free memory for a larger batch; CUDA Graphs once shapes are fixed")},
    {"launch_overhead", N_("Kernel launches, not the GPU, set the pace"), "2.3", gw_rule_launch_overhead,
     /* xgettext:no-c-format */
     N_("GPU-Util moderate while SM activity is a tiny fraction of it; the main process at 100% of one core; power "
        "near "
        "idle; with the tracer: thousands of kernels a step, each a few microseconds, with gaps longer than the "
        "kernels"),
     N_("profile one step (torch.profiler or gpuwhy record --trace): count kernels and their mean duration"),
     N_("remove synchronizing calls from the loop (.item(), print of tensors, torch.cuda.synchronize); torch.compile "
        "to fuse small ops; CUDA Graphs for fixed shapes; fused kernels")},
    {"multi_gpu_sync", N_("GPUs wait on each other"), "2.4", gw_rule_multi_gpu_sync,
     N_("with two or more GPUs: dips on all GPUs at once; SM activity differs by more than 10 points between GPUs "
        "(util "
        "does not show it: a rank waiting in NCCL looks busy); NCCL time not overlapped with compute"),
     N_("compare per-GPU SM activity and clocks (gpuwhy report shows both); NCCL_DEBUG=INFO for transport and timings"),
     N_("balance data and work across ranks; overlap communication with compute (DDP buckets); check NCCL transport "
        "(NVLink/P2P, NCCL_SOCKET_IFNAME); gradient accumulation; ZeRO or tensor parallelism")},
    {"hardware_env", N_("The hardware or environment holds the GPU back"), "2.5", gw_rule_hardware_env,
     N_("Xid errors in the kernel log; P-state not P0 under load; power limit lowered below default; thermal or HW "
        "slowdown / power brake while busy; PCIe link below its generation or width; host on battery; CPU governor "
        "powersave on a host-bound run; uncorrected ECC errors or pending row remaps"),
     N_("nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE; dmesg -T | grep -i nvrm; gpuwhy check"),
     N_("fix cooling, power supply, power limit and driver first (before touching code); mains power; performance "
        "governor; reseat or replace a degraded link or a GPU with uncorrected errors")},
    {"schedule_shape", N_("The training schedule or changing shapes stall the GPU"), "2.6", gw_rule_schedule_shape,
     N_("activity dips at a fixed period (eval, checkpoint, logging) with disk writes or host work during the dips; or "
        "step-time spread without a period (dynamic shapes, recompiles)"),
     N_("log the step time of every step and find the step numbers of the slow ones; look for the eval/save/log code "
        "at "
        "that interval"),
     N_("evaluate less often or in another process; asynchronous checkpoints; logging off the hot path without .item() "
        "each step; pad or bucket variable shapes")},
};
const int gw_nrules = (int)(sizeof gw_rules / sizeof gw_rules[0]);

const struct gw_rule *gw_rule_find(const char *id) {
  for (int i = 0; i < gw_nrules; i++)
    if (strcmp(gw_rules[i].id, id) == 0)
      return &gw_rules[i];
  return NULL;
}

double gw_rule_share(const struct gw_diagnosis *dx, double ns) {
  if (dx->active_ns <= 0)
    return 0;
  double s = ns / dx->active_ns;
  return s < 0 ? 0 : s > 1 ? 1 : s;
}

const struct gw_gpu_profile *gw_rule_mem_churn(const struct gw_diagnosis *dx) {
  const struct gw_gpu_profile *best = NULL;
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_gpu_profile *p = &dx->profiles[i];
    if (p->mem_rises >= gw_thr.mem_churn_min_each && p->mem_falls >= gw_thr.mem_churn_min_each &&
        !isnan(p->mem_changes_per_min) && p->mem_changes_per_min >= gw_thr.mem_churn_per_min &&
        (!best || p->mem_changes_per_min > best->mem_changes_per_min))
      best = p;
  }
  return best;
}

int gw_rule_main_prepares_data(const struct gw_diagnosis *dx) {
  const struct gw_host_profile *h = &dx->host;
  int workers = h->has_workers && !isnan(h->workers_med) && h->workers_med >= 1;
  return !workers && h->has_main && !isnan(h->main_multicore_frac) &&
         h->main_multicore_frac >= gw_thr.main_multicore_min_frac;
}
