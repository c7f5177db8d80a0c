/* The diagnosis of one recording as data: ledgers per GPU, the GPU, host
 * and step profiles, the findings (finding.h), notes, interpretation lines
 * and next experiments. The rules, the multi-GPU summary and the measured
 * verdict fill it; renderers read it. Its own header so that those modules
 * and the one that runs them (diagnosis.h) do not include each other. */
#ifndef GW_ANALYSIS_DIAGNOSIS_MODEL_H
#define GW_ANALYSIS_DIAGNOSIS_MODEL_H

#include <stdint.h>

#include "analysis/compile_shapes.h"
#include "analysis/finding.h"
#include "analysis/goodput.h"
#include "analysis/idle_attribution.h"
#include "analysis/ledger.h"
#include "analysis/periodicity.h"
#include "analysis/series.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_process.h"

#define GW_MAX_NOTES 24
/* One slot per registered class (analysis/rule_registry.h): a rule adds at
 * most one finding; rules.c asserts the registry fits. */
enum gw_rule_slot {
#define GW_RULE(id) GW_RULE_SLOT_##id,
#include "analysis/rule_registry.h"
#undef GW_RULE
  GW_NRULES
};
#define GW_MAX_FINDINGS GW_NRULES
/* One note or evidence line as rendered, in bytes: the longest translated
 * note (Chinese, 3 bytes a character) is over 400 once its numbers are in. */
#define GW_TEXT 768

/* The largest speed-up printed as a number: the bound 1 / (1 - share)
 * grows without limit as the share nears 1, and a share measured to a point
 * or two (sampled counters) cannot tell 50x from 100x there: at a share of
 * 0.98 one point more doubles it. Above this the text says "more than". */
#define GW_SPEEDUP_SHOWN_MAX 50.0

/* Run-wide aggregates of one GPU over its active span. NAN when unknown. */
struct gw_gpu_profile {
  int gpu;
  int has_sm;    /* SM activity present (GPM, or a substitute: sm_source) */
  int sm_source; /* enum gw_sm_activity_source (analysis/sm_fill.h) */
  double util_med_pct, sm_med_pct, sm_p90_pct, sm_per_util;
  double math_med_pct; /* busiest math pipe (tensor, fp32, fp16) median; NAN without GPM pipes */
  double math_fill;    /* math_med_pct / sm_med_pct: how much of the SM time feeds a math pipe */
  double tensor_fill;  /* tensor pipe median / sm_med_pct; NAN without the tensor counter */
  double occupancy_med_pct, dram_med_pct;
  int mem_rises, mem_falls; /* device memory changes of at least mem_churn_step_bytes */
  double mem_changes_per_min;
  double power_med_w, power_limit_w, power_default_w, power_frac;
  double mem_used_frac; /* median over the steady span */
  /* the highest reading over the GPU's working span, as compare's "memory used,
   * peak": a larger batch must fit the peak, not the median */
  double mem_peak_frac;
  double sm_clock_med_mhz, sm_clock_max_mhz;
  double pcie_rx_med_bps;
  /* the receive is high with NCCL and an offloaded optimizer ruled out (gw_pcie_rx_is_input) */
  int pcie_rx_is_input;
  /* sent and received traffic of an optimizer kept in host memory (gw_pcie_round_trip) */
  int pcie_round_trip;
  double pcie_tx_med_bps;
  double loaded_ticks;       /* ticks with util at or above the busy threshold */
  double power_cap_frac;     /* of loaded ticks, SW power cap set */
  double bad_throttle_frac;  /* of loaded ticks, thermal / HW slowdown / brake */
  double not_p0_frac;        /* of loaded ticks, P-state above 0 */
  double pcie_degraded_frac; /* of loaded ticks, link below its maximum */
  double pcie_gen_min, pcie_width_min;
  int pstate_max;
  int xid_count, ecc_dbe, remap_pending, remap_failure;
  int64_t first_xid_ns;
  /* Xids that do not count against the hardware: those logged before the
   * recording began (the kernel log keeps a machine's whole history, other
   * jobs' faults included; the NVML error counters sampled during the run
   * show a fault that persists) and application faults (a kernel's bad
   * access, a program killed), which are bugs in a program, not in the GPU. */
  int xid_earlier_count, xid_earlier_last_code, xid_app_count, xid_app_first_code;
  int64_t xid_earlier_last_ns;
  struct gw_period period; /* of the SM activity series */
  double dip_share;        /* share of active ticks in a dip */
  int64_t active_start_ns, active_end_ns;
};

/* Run-wide aggregates of the host and target process over the GPU active span. */
struct gw_host_profile {
  int has_main, has_workers, has_disk, has_cpu;
  double main_cpu_med_pct, main_busy_frac, main_running_med;
  double main_multicore_frac; /* share of samples with the target process above main_multicore_cpu_pct */
  /* share of samples whose launching threads (main + autograd) were
   * saturated, the process's CPU standing in where they were not measured */
  double launch_busy_frac;
  /* median CPU of the target process's threads that launch no kernels (the
   * process less main + autograd), % of one core; NAN where not measured */
  double other_threads_med_pct;
  /* the main thread's CPU time over that of PyTorch's autograd threads (the
   * backward's launchers), summed over the span; NAN where no autograd
   * thread was seen (no backward on the GPU, or not measured), INFINITY
   * where they never ran */
  double main_per_backward_cpu;
  /* share of samples whose main thread alone (not the process) kept a core
   * busy (gw_thr.main_saturated_cpu_pct); NAN where not measured */
  double main_thread_busy_frac;
  double workers_med, worker_cpu_max_med_pct, workers_saturated_frac;
  /* median count of the loader's worker processes from the count alone,
   * their CPU measured or not (a worker that lives under two host ticks,
   * respawned each epoch or pass, has no CPU rate); NAN where not counted */
  double workers_seen_med;
  double disk_util_p90_pct, disk_busy_frac, iowait_med_pct;
  double disk_write_dip_bps, disk_write_other_bps; /* writes during GPU dips and elsewhere */
  /* the dips write to disk at a checkpoint's rate (gw_thr.checkpoint_write_bps)
   * and at twice the rate of the rest of the run: the host work in them is
   * saving state, not preparing data */
  int dip_writes_checkpoint;
  double corr_sm_worker, corr_sm_disk, corr_sm_main;
  int on_battery; /* 1 yes, 0 no, -1 unknown */
  char governor[32];
  int physical_cores, logical_cpus;
  int no_dataloader; /* the enabled Python hook saw no DataLoader iteration in the run */
};

struct gw_step_profile {
  int from_table; /* 1: the program's own step markers; 0: estimated from activity */
  int n;
  /* With steps from the table: one process's (the lowest rank), its warm-up
   * step left out, each step's measured wait in DataLoader.__next__ taken
   * out, so the spread is of the steps' own work. */
  double median_s, p90_over_p50, cv;
  double excess_share; /* time spent above the median step, share of all step time (waits included) */
  /* The Python hook's steps per process (rank), lowest rank first. */
  int nprocs;
  struct gw_step_process procs[GW_MAX_STEP_PROCS];
};

struct gw_multi_gpu; /* analysis/multi_gpu.h */

/* A command that would decide what the data cannot, and why: why_id is a
 * row of render/note_text.c's table, worded at render time. */
struct gw_experiment {
  const char *what;
  const char *why_id;
};

struct gw_diagnosis {
  char path[1024];
  int64_t started_ns, ended_ns;
  int ngpus;
  struct gw_ledger *ledgers;       /* one per GPU */
  struct gw_gpu_profile *profiles; /* one per GPU */
  struct gw_kernel_stats *kstats;  /* one per GPU: the traced kernels (nkernels 0 without) */
  struct gw_ledger total;          /* all GPUs added */
  struct gw_host_profile host;
  struct gw_step_profile steps;
  struct gw_step_breakdown step_breakdown; /* found 0 without steps */
  struct gw_compile_shapes compile_shapes; /* torch.compile time and first visits of shapes, from the hook's steps */
  double active_ns, lost_ns; /* all GPUs: active time, and the part that was not productive or at the power cap */
  int estimated;             /* 1: some ledger came from counters only */
  int nfindings;
  struct gw_finding findings[GW_MAX_FINDINGS]; /* sorted: largest share first */
  /* no class holds and the GPU waits for work that was never asked for (an
   * inference server between requests): the verdict is "none", a note says so */
  int demand_limited;
  /* No GPU had SM activity from any source (GPM, PM sampling, DCGM, a
   * trace's launch configurations): the ledger's busy time is GPU-Util's,
   * "a kernel was resident", and how full the SMs were is not known. */
  int sm_blind;
  const char
      *verdict; /* top class id, "none", "unexplained" (no class holds while a third or more is lost), "no_data" */
  /* the part of the ledger's idle: other row that findings claim from
   * indirect signals (gw_diagnosis_cap_shares), all GPUs */
  double other_claimed_ns;
  /* one per GPU: idle time charged to what the training thread did (source
   * GW_ATTR_NONE where the recording has no thread or Python samples) */
  struct gw_idle_attribution *attr;
  int measured; /* some GPU's idle time was attributed from samples: the verdict follows it */
  /* What this recording cannot show (analysis/rule_signals.h): by registry
   * index, 1 where the rule found none of the signals it reads; and the
   * longest period a recurring stall can have to recur often enough inside
   * the steady run, NAN where that class was found or nothing ran. Each
   * also has its note. */
  unsigned char not_measurable[GW_NRULES];
  double pattern_visible_max_s;
  /* Notes and interpretation lines are data like evidence: an id of the
   * message table in render/note_text.c and its values, worded at render
   * time. */
  int nnotes;
  struct gw_evidence notes[GW_MAX_NOTES]; /* caveats: start-up cut, estimates, missing metrics */
  int ninterp;
  struct gw_evidence interp[GW_MAX_NOTES]; /* how to read the raw numbers (util vs SM, power vs limit, ...) */
  int nexperiments;
  struct gw_experiment experiments[GW_MAX_FIXES]; /* exact commands when the data cannot decide */
  /* the text of experiments made for this recording (its path, its command filled in) */
  char experiment_text[2][GW_TEXT * 3];
  /* the experiments' commands with the recorded command in place of CMD (analysis/next_run.h) */
  char experiment_commands[GW_MAX_FIXES][GW_TEXT];
  struct gw_multi_gpu *multi;    /* two or more GPUs worked: the multi-GPU summary; else NULL */
  struct gw_mfu *mfu;            /* one per GPU (analysis/mfu.h); measured 0 without a counted step */
  struct gw_goodput *goodput;    /* one per GPU: the ledger as goodput and badput */
  struct gw_goodput goodput_job; /* all GPUs added */
};

/* Everything the rules read. */
struct gw_rule_input {
  const struct gw_recording *rec;
  const struct gw_diagnosis *dx;
};

#endif
