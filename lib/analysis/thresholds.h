/* Every number the diagnosis compares against, in one table, each with the
 * place it comes from (the symptoms practitioners report, the H200
 * measurements, or the hardware's own definitions). Rules never hard
 * code a threshold; they read gw_thresholds. */
#ifndef GW_THRESHOLDS_H
#define GW_THRESHOLDS_H

struct gw_thresholds {
  /* --- when is a GPU tick "active" (start-up and tail are cut off) --- */
  double active_util_pct;       /* util_gpu_pct at or above: a kernel was resident */
  double active_sm_pct;         /* or sm_active_pct at or above */
  double active_util_no_sm_pct; /* util at or above, on ticks without SM activity: a kernel was resident */
  double lead_burst_max_s;      /* a burst this short at the start ... */
  double lead_gap_min_s;        /* ... followed by a pause this long is set-up, not training */
  int loop_min_steps;           /* in-process steps a loop needs before its first one counts as warm-up */
  double outlier_step_factor;   /* a step this many times the loop's median did work the others did not ... */
  double outlier_step_max_frac; /* ... when at most this share of the steps are that long */
  int outlier_min_steps;        /* steps a loop needs before its median tells an outlier */

  /* --- host side --- */
  double worker_saturated_cpu_pct; /* a loader worker at this share of one core is saturated */
  double worker_min_avg_cpu_pct;   /* a descendant averaging less never works: not a loader worker */
  double main_saturated_cpu_pct;   /* the main process at this share of one core cannot launch faster */
  double main_multicore_cpu_pct;   /* the main process above this runs CPU tensor work, not launches */
  double main_multicore_min_frac;  /* share of samples above it that makes it a habit of the run */
  double main_per_backward_max;    /* main thread CPU over the autograd threads': above it, not launching */
  double disk_busy_util_pct;       /* iostat %util: the device queue is rarely empty */
  double iowait_high_pct;          /* host iowait share meaning readers wait on storage */
  double pcie_rx_high_bps;         /* sustained host-to-device traffic worth naming */
  double pcie_offload_tx_per_rx;   /* device-to-host at this share of the receive or more: a round trip, not input */
  double pcie_offload_min_tx_bps;  /* device-to-host traffic the program sends on purpose, not the driver's */

  /* --- GPU side --- */
  double low_power_frac;          /* power / limit below this: the GPU is not really working */
  double checkpoint_write_bps;    /* disk writes during GPU dips at this rate or more: state saved to disk */
  double checkpoint_mem_frac;     /* ... at ticks with GPU memory in use at least this share of the run's peak */
  double launch_sm_per_util;      /* SM activity / GPU-Util below this: kernels too tiny to matter */
  double launch_min_util_pct;     /* GPU-Util at or above while the host is busy: the host is issuing kernels */
  double at_limit_power_frac;     /* power / limit at or above: the GPU works as hard as its budget allows */
  double small_math_fill_frac;    /* busiest math pipe / SM activity below this: SMs resident but unfed */
  double small_tensor_fill_frac;  /* tensor pipe / SM activity at or above: GEMMs on tensor cores at a healthy rate */
  double stream_math_fill_frac;   /* busiest math pipe / SM activity below this: kernels move data, compute nothing */
  double small_occupancy_max_pct; /* occupancy above this is a streaming (element-wise) mix, not small GEMMs */
  double small_busy_util_pct;     /* GPU-Util at or above: the GPU looks busy */
  double small_doubling_gain_min; /* predicted samples/s gain of a doubled batch at or above: the batch is small */
  /* NCCL kernels resident this share of traced time: the collective sets the step */
  double small_comm_bound_nccl_frac;
  double small_sm_per_util;       /* SM activity / GPU-Util below this while busy: underfilled */
  double small_saturated_pct;     /* SM activity median at or above, at the power limit: no room for more work */
  double small_loader_paced_wait; /* typical step's data wait share at or above: the loader paces the loop */
  double sm_above_util_pct;       /* SM activity median this far above GPU-Util's: bursts between util reads */
  double mem_mostly_free_frac;    /* used / total below this: room for a larger batch */
  double mem_headroom_low_frac;   /* used / total above this: less than the 20-30% headroom */
  double multi_sm_spread_pct;     /* SM activity spread between GPUs naming a straggler */
  double multi_wait_spread_frac;  /* NCCL share of active time differing this much between GPUs: one waits */
  double multi_exposed_min_share; /* NCCL time not hidden behind compute, share of active time: a comm finding */
  double multi_util_gap_pct;      /* GPU-Util of a starved rank this far below its spinning peers' */
  double multi_work_excess_frac;  /* the straggler's work (cycles) above its peers' by this share: more work */
  double multi_clock_gap_frac;    /* the straggler's SM clock below its peers' by this share: slower clocks */
  double busy_tick_util_pct;      /* a tick with util at or above counts as "under load" */
  double hw_bad_tick_frac;        /* share of loaded ticks with a hardware symptom to report it */
  double power_limit_low_frac;    /* enforced limit / default limit below this is a lowered cap */

  /* --- time structure --- */
  double dip_frac_of_typical;  /* activity below this fraction of the typical level is a dip */
  double period_min_s;         /* shortest period blamed on the schedule (longer than a step) */
  double period_min_strength;  /* autocorrelation at the period needed to call it periodic */
  double step_jitter_cv;       /* step-time coefficient of variation meaning jittery steps */
  double step_jitter_p90_p50;  /* or p90/p50 of step times */
  double mem_churn_step_bytes; /* a device memory change at least this large is an allocation */
  double mem_churn_min_each;   /* rises and falls each at least this many times ... */
  double mem_churn_per_min;    /* ... and changes at least this often: shapes vary between steps */
  /* steps estimated from activity needed before their spread means anything */
  double step_jitter_min_estimated;
  /* busiest loader worker saturated on this share of samples: input sets the pace */
  double loader_bound_saturated_frac;

  /* --- findings --- */
  double finding_min_share;         /* a class must cost at least this share of active GPU time */
  double finding_min_conf;          /* and reach this confidence to be reported */
  double unexplained_lost_frac;     /* lost share of active time above which "none" becomes "unexplained" */
  double verdict_min_share_of_lost; /* the share of the lost time the verdict's class must explain */
  /* the same from counters without SM activity: the lost share is then the time without a resident kernel */
  double unexplained_lost_no_sm_frac;
  double no_gpm_conf_factor; /* confidence multiplier when SM activity is unavailable */
  double launch_gap_max_ns;  /* timeline: a gap this short is launch latency, not waiting */
  double host_quiet_max_ns;  /* timeline: a longer gap is launch-bound when the host's CUDA calls never pause longer */
  double sync_slack_ns;      /* timeline: a sync that ended this little before a gap opened was still waiting */
};

extern const struct gw_thresholds gw_thr;

/* The clock event reason bits (GW_CLK_*) are facts of the samples: core/sample.h. */

#endif
