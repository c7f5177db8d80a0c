/* The message table of the bottleneck classes: one row per registry class
 * (lib/analysis/rule_registry.h), its title and the quick reference of
 * `gpuwhy explain`, in English (marked with N_), translated when shown. */
#include "class_text.h"
#include "render/message_table.h"

#include <string.h>

#include "core/i18n.h"

/* In registry order, as explain lists them. */
static const struct gw_class_message messages[] = {
    {"input_pipeline", N_("The input pipeline does not keep the GPU fed"),
     /* xgettext:no-c-format */
     N_("low SM activity and low power; GPU idle between steps; data-loader worker processes each near 100% of a core, "
        "or disk util high / iowait; main process waiting, not saturated; step times uneven; high PCIe receive with "
        "pageable copies"),
     N_("gpuwhy experiment fixed-batch -- CMD replays each DataLoader's first batches from memory: if throughput "
        "jumps, the input side is the cause; watch worker CPU (htop) and disk (iostat -x 1) during the dips"),
     N_("num_workers near half the physical cores; persistent_workers=True; prefetch_factor 2-4; pin_memory=True; move "
        "heavy transforms to the GPU; stream large datasets (WebDataset) instead of random reads")},
    {"small_batch", N_("Batches are too small to fill the GPU"),
     N_("GPU-Util high but SM activity and occupancy low; most device memory free; main thread not saturated; power "
        "moderate; allocator churn with changing shapes"),
     N_("sweep the batch size (gpuwhy sweep --param bs=32,64,128 -- CMD --batch-size {bs}): throughput rising with the "
        "batch means the work is too fine-grained"),
     /* xgettext:no-c-format */
     N_("raise the batch size (keep 20-30% memory headroom); fix input shapes (pad); mixed precision; activation "
        "checkpointing to free memory for a larger batch; CUDA Graphs once shapes are fixed")},
    {"launch_overhead", N_("Kernel launches, not the GPU, set the pace"),
     /* xgettext:no-c-format */
     N_("GPU-Util moderate while SM activity is a tiny fraction of it; the main process at 100% of one core; power "
        "near "
        "idle; with the tracer: thousands of kernels a step, each a few microseconds, with gaps longer than the "
        "kernels"),
     N_("profile one step (torch.profiler or gpuwhy record --trace): count kernels and their mean duration"),
     N_("remove synchronizing calls from the loop (.item(), print of tensors, torch.cuda.synchronize); torch.compile "
        "to fuse small ops; CUDA Graphs for fixed shapes; fused kernels")},
    {"multi_gpu_sync", N_("GPUs wait on each other"),
     N_("with two or more GPUs: dips on all GPUs at once; SM activity differs by more than 10 points between GPUs "
        "(util "
        "does not show it: a rank waiting in NCCL looks busy); NCCL time not overlapped with compute"),
     N_("compare per-GPU SM activity and clocks (gpuwhy report shows both); NCCL_DEBUG=INFO for transport and timings"),
     N_("balance data and work across ranks; overlap communication with compute (DDP buckets); check NCCL transport "
        "(NVLink/P2P, NCCL_SOCKET_IFNAME); gradient accumulation; ZeRO or tensor parallelism")},
    {"hardware_env", N_("The hardware or environment holds the GPU back"),
     N_("Xid errors in the kernel log; P-state not P0 under load; power limit lowered below default; thermal or HW "
        "slowdown / power brake while busy; PCIe link below its generation or width; host on battery; CPU governor "
        "powersave on a host-bound run; uncorrected ECC errors or pending row remaps; another process's kernels on the "
        "same GPU"),
     N_("nvidia-smi -q -d PERFORMANCE,POWER,TEMPERATURE; dmesg -T | grep -i nvrm; gpuwhy check"),
     N_("fix cooling, power supply, power limit and driver first (before touching code); mains power; performance "
        "governor; reseat or replace a degraded link or a GPU with uncorrected errors")},
    {"schedule_shape", N_("The training schedule or changing shapes stall the GPU"),
     N_("activity dips at a fixed period (eval, checkpoint, logging) with disk writes or host work during the dips; "
        "step-time spread without a period (dynamic shapes, recompiles); or torch.compile recompilations and slow "
        "first "
        "steps of new input shapes measured by the Python hook; or a busy thread of the process that launches no "
        "kernels while the GPU idles for no measured reason (it takes the interpreter lock)"),
     N_("log the step time of every step and find the step numbers of the slow ones; look for the eval/save/log code "
        "at "
        "that interval"),
     N_("evaluate less often or in another process; asynchronous checkpoints; logging off the hot path without .item() "
        "each step; a busy helper thread's work in a process of its own; pad or bucket variable shapes")},

#ifdef GW_EXTRA_CLASS_MESSAGES
/* Test builds only: the row of the test-only class (tests/rule7/). */
#include GW_EXTRA_CLASS_MESSAGES
#endif
};

GW_MESSAGE_TABLE_ACCESSORS(struct gw_class_message, messages, gw_class_messages, gw_class_message_find)

const char *gw_class_title(const char *id, int translate) {
  const struct gw_class_message *row = gw_class_message_find(id);
  if (!row) /* a class without a row: still name it */
    return id ? id : "?";
  return translate ? _(row->title) : row->title;
}

const char *gw_class_signals(const char *id) {
  const struct gw_class_message *row = gw_class_message_find(id);
  return row ? _(row->signals) : "";
}

const char *gw_class_confirm(const char *id) {
  const struct gw_class_message *row = gw_class_message_find(id);
  return row ? _(row->confirm) : "";
}

const char *gw_class_fixes(const char *id) {
  const struct gw_class_message *row = gw_class_message_find(id);
  return row ? _(row->fixes) : "";
}
