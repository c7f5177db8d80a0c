#include "thresholds.h"

/* Where the numbers come from:
 *  [field] what practitioners report as the class's symptom (quoted where
 *          a phrase is the rule), checked against the fixtures' recordings
 *  [h200]  measured by this project on an H200 (the workloads of scenarios/,
 *          whose recordings are tests/fixtures/scenarios)
 *  [def]   the definition of the counter itself
 * They are physics-based starting points, not fitted to any one recording. */
const struct gw_thresholds gw_thr = {
    /* [h200] idle reads util 0 and SM 0; the smallest real load measured (a
     * tiny-kernel storm) reads util 13-25% with SM 0.1%, so util >= 5% already
     * means work, and SM >= 2% means work even when util is missing. */
    .active_util_pct = 5.0,
    .active_sm_pct = 2.0,
    /* [def] GPU-Util is the share of the driver's sample periods with a
     * kernel resident, and idle reads 0: any reading means a kernel ran.
     * Where SM activity is missing (no GPM: A100, V100, L4, T4, GeForce) it
     * is the only trace of a run starved between short bursts: [h200]
     * input_slow_read reads 1-4% on 283 of its 447 ticks, where SM activity
     * shows the bursts. It extends a run that has begun, never starts one
     * (set-up trickles a few percent too); with SM activity the 5% floor
     * above stands. */
    .active_util_no_sm_pct = 1.0,
    /* [h200 scenarios] CUDA context creation and the weight upload show as a
     * burst under a second, then imports or compilation leave the GPU idle
     * for 4-6 s before the first step; inside a run the longest pauses of
     * fed steps are under 3 s. A burst of at most 2 s followed by 3 s of
     * nothing is set-up, not the run. */
    .lead_burst_max_s = 2.0,
    .lead_gap_min_s = 3.0,
    /* [def] The first step of a loop carries what happens once: CUDA context
     * and cuBLAS/cuDNN handles, cudnn.benchmark searches, the caching
     * allocator growing to its working set, torch.compile's first graph,
     * loader workers starting. With steps measured inside the program the
     * run's steady state is from the end of the first step to the end of the
     * last; three steps leave at least two ordinary ones to measure. */
    .loop_min_steps = 3,
    /* [field]+[def] The steps of a fed loop do the same work and vary by tens
     * of percent (batch content, allocator, Python's garbage collector); a
     * step three times the median did something the others did not: an
     * evaluation, a checkpoint, logging with a sync, a recompile or a new
     * shape's first visit. Such actions come every N steps with N in the tens
     * to thousands; a loop whose long steps are more than one in five has a
     * rhythm of its own (loader workers taking turns, gradient accumulation),
     * not occasional work. Ten steps give a median to compare with. */
    .outlier_step_factor = 3.0,
    .outlier_step_max_frac = 0.2,
    .outlier_min_steps = 10,

    /* [field] "several cores pinned at full load": cpu_pct is a share
     * of one core, so near 100% is a saturated single-threaded worker. 85%
     * leaves room for sampling noise and short waits. */
    .worker_saturated_cpu_pct = 85.0,
    /* [h200] torch.compile leaves a pool of ~17 compile workers at 0% CPU
     * beside the loader; a loader worker that ever serves batches averages
     * far above 10% of a core. */
    .worker_min_avg_cpu_pct = 10.0,
    /* [field] Python launching tiny kernels keeps its one thread busy;
     * same reasoning as for workers. */
    .main_saturated_cpu_pct = 85.0,
    /* [def] a GPU-fed training process keeps at most two threads busy
     * without preparing data: the Python loop that launches kernels (or
     * CUDA's spin-wait on a sync), and one helper thread that runs all the
     * time (NCCL's proxy thread, the pin-memory thread, a logger). Above 2.5
     * cores it runs a thread pool of CPU tensor ops (transforms,
     * collation): data preparation in the main process. (1.5 cores took one
     * such helper thread per rank for data preparation: review 2026-12-01.) */
    .main_multicore_cpu_pct = 250.0,
    /* one sample in twenty: a recurring part of the step, not a one-off
     * (a GPU-fed loop never exceeds one core: [h200] 23 of 24 scenarios) */
    .main_multicore_min_frac = 0.05,
    /* [physics] a training step's backward kernels are launched by
     * PyTorch's autograd thread (pt_autograd_N), not the Python thread: at
     * least one backward kernel per forward op that needs a gradient, most
     * ops two, each a few microseconds of C++ dispatch. The forward's ops
     * cost the Python thread at most about four times as much host time per
     * kernel (the interpreter's frames on top of the same dispatch), and the
     * loss, zero_grad and a foreach optimizer's few launches at most as much
     * again: launching alone keeps the main thread under about 8x the
     * autograd threads' CPU time. A main thread busier than that, beside an
     * autograd thread that mostly sleeps, spends its core on host work of
     * its own (making the batch, CPU compute), not on the model's launches. */
    .main_per_backward_max = 8.0,
    /* [field] "iostat shows util piling up"; 80% util on a device is the
     * usual iostat reading of a queue that is rarely empty. */
    .disk_busy_util_pct = 80.0,
    /* [def] iowait above a fifth of CPU time means readers block on storage. */
    .iowait_high_pct = 20.0,
    /* [field] long high PCIe use means frequent host copies. 1 GB/s is
     * about 2% of a gen5 x16 link but already tens of MB a 30 ms step. */
    .pcie_rx_high_bps = 1.0e9,
    /* [physics] input crosses PCIe one way (a batch down, a loss scalar
     * back); an optimizer kept in host memory (ZeRO-Offload, CPU Adam) moves
     * the gradients down and the updated parameters back up each step: the
     * same element count, in equal dtypes the same bytes, at most twice
     * apart where one direction travels in fp32 and the other in bf16. Sent
     * traffic at half the received or more is that round trip. */
    .pcie_offload_tx_per_rx = 0.5,
    /* [def] a training loop that keeps its data and optimizer on the GPU
     * sends back only scalars (a loss, a few metrics): [h200] every fixture
     * but one sends 0.01-0.02 GB/s, the driver's own traffic included. An
     * optimizer in host memory sends every gradient down once per optimizer
     * step: a 100 M-parameter model at 2 steps a second is 0.8 GB/s. Ten
     * times the idle floor, 0.2 GB/s, is bytes the program moves back on
     * purpose; with the receive within the round-trip ratio above, it is
     * the optimizer's traffic (input_pageable_copies sends 0.41 GB/s but
     * receives 6.8: a batch one way). */
    .pcie_offload_min_tx_bps = 0.2e9,

    /* [field] 100 W of 350 W and 90 W of 300 W mean "not really
     * working"; [h200] a storm sits at 130 W and a starved loop at 231 W of
     * 700 W (0.19 and 0.33), a busy GEMM at 0.98. */
    .low_power_frac = 0.40,
    /* A checkpoint writes the model's and the optimizer's state: a model of
     * 25 M fp32 parameters with Adam is 300 MB, written in a stall of 1-3 s,
     * 100 MB/s or more on average over the stall; a training loop's logs and
     * metrics write kilobytes to a few MB/s. [h200/h100 fixtures] dips write
     * 417-432 MB/s in the checkpoint recordings, at most 0.4 MB/s in all
     * others (data readers read, they do not write). */
    .checkpoint_write_bps = 50e6,
    /* The state a checkpoint saves is in GPU memory while it is written: the
     * caching allocator keeps the training level (weights, optimizer state,
     * cached activations) through the stall. Before training, a program that
     * writes its data set holds only its context and model (37% of the
     * later peak in input_slow_read); a checkpoint stall sits at 100%. */
    .checkpoint_mem_frac = 0.8,
    /* [h200] a storm has SM/util of 0.1/20 = 0.005; any real kernel mix with
     * launch-bound gaps stays far below 0.1. */
    .launch_sm_per_util = 0.10,
    /* [h200] a launch-bound storm keeps a kernel resident 13-25% of the
     * time; at 10% and above the host is issuing kernels, below it the busy
     * host is doing something else (planning, Python work). */
    .launch_min_util_pct = 10.0,
    /* [h200] a GEMM at the 700 W limit draws 98% of it; the transformer of
     * the healthy scenario 94%. At 90% the GPU spends its power budget and a
     * larger batch cannot buy much more. */
    .at_limit_power_frac = 0.90,
    /* [h200 sweep] the fp32 MLP's busiest math pipe covers 0.73 of SM
     * activity at batch 2048 and 0.88 for a bf16 GEMM at the power cap; the
     * measured throughput still rose >20% per batch doubling up to a fill of
     * 0.57 (batch 512) and 11% from 0.68 (batch 1024). Below 0.6 the SMs are
     * resident but wait on memory latency: too little work per kernel. */
    .small_math_fill_frac = 0.60,
    /* [field] small batches show low occupancy: [h200] GEMM-bound steps
     * sit at 15-33% (the whole sweep), while chains of element-wise kernels
     * launched with huge grids fill 60% of warp slots, and a larger batch
     * only scales their bytes. Half the warp slots separates the two. */
    .small_occupancy_max_pct = 50.0,
    /* [physics] the tensor pipe does about 15x the arithmetic of the FP32
     * pipe per active cycle (H200: 989 dense BF16 TFLOPS against 67 FP32),
     * so its fill is judged against its own peak: well-run transformer
     * training reaches 35-55% of the tensor cores' peak (the published
     * model-FLOPs utilisation of large LLM runs), the rest of the step
     * being attention, normalisation and element-wise kernels bound by
     * memory, which a larger batch only scales. A tensor pipe busy for at
     * least 30% of the active SM time is such a job, not one starved of
     * work per kernel, whatever its board power. */
    .small_tensor_fill_frac = 0.30,
    /* [physics] a kernel that does one arithmetic operation per 4-byte
     * element it moves, at the H100's and H200's memory speed (3.35-4.8
     * TB/s), keeps the FP32 pipe (67 TFLOP/s) 1.3-1.8% busy; NCCL's
     * reduce-copy loop is such a kernel, and over NVLink it moves less.
     * [h200] the smallest small-batch GEMMs of the scenarios keep it 5.6%
     * busy. Under 3% the resident kernels move data and compute nothing. */
    .stream_math_fill_frac = 0.03,
    /* [physics] DDP runs the gradient all-reduce alongside the backward
     * pass, so a step lasts at least as long as its collectives. NCCL
     * kernels resident for half the traced time or more run as long as all
     * the other work together: a better-filled compute would finish sooner
     * and wait in the collective instead; the step's length is the
     * communication's (multi_gpu_sync), not the batch's fill. */
    .small_comm_bound_nccl_frac = 0.5,
    /* [field] "util not low but throughput low": util at least half. */
    .small_busy_util_pct = 50.0,
    /* [physics] the gain per doubling of the batch below which `gpuwhy
     * sweep` puts the knee (lib/compare/sweep.c) and the sweep fixtures'
     * labels call the batch large enough. The trace predicts it without GPM
     * (kernel_stats.h: gw_kstats_doubling_time): the optimizer's pass over
     * every parameter keeps its time, a kernel's blocks fill SMs its last
     * wave left empty, the rest doubles. Per-parameter work alone at a share
     * s gives 2 / (2 - s) - 1, 20% at s = 1/3, on any GPU and model. */
    .small_doubling_gain_min = 0.20,
    /* [h200] a full GEMM reaches SM/util 0.95; below 0.6 the resident
     * kernels leave a large share of the SMs empty. */
    .small_sm_per_util = 0.60,
    /* [def] SM activity is the share of time an SM holds a warp; 90%
     * leaves a tenth for the gaps between kernels and the last wave's
     * tails. With the board at its power limit as well, neither warp slots
     * nor power are left for a larger batch to use. */
    .small_saturated_pct = 90.0,
    /* [def] a loader that keeps up hands over a prefetched batch in a queue
     * get (tens to hundreds of microseconds): well under a tenth of a step
     * of a few milliseconds or more. A typical step that waits longer than
     * that waits every step for a loader slower than the GPU's work, and
     * kernels that fill the SMs better would only lengthen the wait. */
    .small_loader_paced_wait = 0.10,
    /* [def] an SM is busy only while a kernel is resident, so over one window
     * SM activity cannot exceed GPU-Util. GPU-Util comes in whole percents
     * and its medians and GPM's are taken over windows that end at different
     * moments, which moves a steady load by a point or two; three points
     * above is beyond that: work came in bursts the point reads missed.
     * [h200] util and GPM read out of phase on a bursty loop. */
    .sm_above_util_pct = 3.0,
    /* [field] "memory only 20% used" pointed away from a full GPU; below
     * half there is room to at least double the batch. */
    .mem_mostly_free_frac = 0.50,
    /* [field] keep 20-30% headroom: above 80% used it is gone. */
    .mem_headroom_low_frac = 0.80,
    /* [field] "SM utilization differs by more than 10% between cards";
     * [h200] a 40% imbalance showed 64% vs 88%. */
    .multi_sm_spread_pct = 10.0,
    /* [def] ranks that do the same work spend the same time in collectives;
     * a gap in NCCL kernel time is time one rank waited for another.
     * [field] the same 10% margin as the SM spread: [h200] two ranks with
     * equal work differed by 5 points (27% vs 22%, 32% vs 27%) from the
     * sampled windows alone, the 40%-more-work rank by 35. */
    .multi_wait_spread_frac = 0.10,
    /* [field] communication is a bubble when it is a real part of the
     * step: DDP always leaves the last gradient bucket's all-reduce exposed
     * after backward, [h200] 6% of the traced time in a healthy compute-bound
     * pair, 30% with a billion parameters at batch 32. A tenth of the time,
     * the same 10% margin as the SM spread, separates them. */
    .multi_exposed_min_share = 0.10,
    /* [h200] a waiting rank's NCCL kernel spins and counts as busy (94-95%
     * util on both GPUs of a DDP straggler run), so a rank whose GPU-Util
     * sits 10 points (the SM spread's 10% margin) under its peers idles on its own. */
    .multi_util_gap_pct = 10.0,
    /* [field] a 10% difference between cards is the imbalance to name;
     * work is counted in clock cycles (activity x clock), so a card that
     * only runs slower clocks is not mistaken for one with more work. */
    .multi_work_excess_frac = 0.10,
    /* [h200] the busier card of the straggler run held 1530-1575 MHz against
     * 1950-1965 MHz (-20%); a 10% lower clock (the same margin as the work
     * excess above) at equal work is a slower card, not a busier one. */
    .multi_clock_gap_frac = 0.10,
    /* [field] P-state and clocks only matter while the GPU is loaded. */
    .busy_tick_util_pct = 50.0,
    /* a symptom on at least 5% of loaded ticks is more than a blip */
    .hw_bad_tick_frac = 0.05,
    /* [field] "power limit pressed low"; a 10% cut is deliberate. */
    .power_limit_low_frac = 0.90,

    /* [field] periodic drops: activity below half the typical level. */
    .dip_frac_of_typical = 0.50,
    /* [field] eval / checkpoint every N steps: periods of seconds, far
     * longer than one step; 2 s keeps per-step rhythm out. */
    .period_min_s = 2.0,
    /* [def] an autocorrelation of 0.3 at the lag is well above the noise of
     * a few hundred samples (about 2/sqrt(n)). */
    .period_min_strength = 0.30,
    /* [field] "step times long and short": a CV of 0.3 or p90 at 1.5x
     * the median is visible jitter; [h200] run-to-run noise is ~10%. */
    .step_jitter_cv = 0.30,
    .step_jitter_p90_p50 = 1.5,
    /* [def] steps estimated from activity swings are swings the sample
     * tick resolves, and a short run holds only its phases (warm-up, a
     * sweep's change of point); the coefficient of variation of n samples
     * has a relative standard error of about 1/sqrt(2(n-1)): 20 swings put
     * it at 16%, so a spread of 0.3 is then more than phases and noise. */
    .step_jitter_min_estimated = 20,
    /* [def] the busiest worker saturated in at least half the samples means
     * the loader cannot keep up most of the time: the step waits for its
     * batch, and what the main process does between batches (receiving
     * them, allocating their tensors) follows the input, not the shapes.
     * The same test decides whether dips are periodic (mark_periodic). */
    .loader_bound_saturated_frac = 0.5,
    /* [def] after its first steps the caching allocator keeps its blocks,
     * so a fixed-shape loop shows constant device memory ([h200] 20 fixed
     * shape scenarios: at most one change in 30 s). Repeated rises and falls
     * of at least 16 MiB (far above the driver's 2 MiB pages), several times
     * a minute, mean allocations differ from step to step: varying shapes. */
    .mem_churn_step_bytes = 16.0 * 1024 * 1024,
    .mem_churn_min_each = 3,
    .mem_churn_per_min = 6.0,

    /* Findings under 5% of active GPU time are below the 10% run-to-run
     * noise [h200] and not worth a user's first hour. */
    .finding_min_share = 0.05,
    .finding_min_conf = 0.30,
    /* [physics] a job that loses a third of its active GPU time would run
     * 1.5x faster without that loss: far above run-to-run noise (10% [h200])
     * and above what a well-fed job pays for work that cannot overlap (the
     * exposed last all-reduce, the optimizer step, the step-boundary sync:
     * [h200] the healthy transformer loses 16%, a balanced DDP pair 27%,
     * most of it the exposed all-reduce). When no class's
     * evidence holds at that loss, the recording lacks the signal that would
     * name the cause: say so ("unexplained") instead of "nothing to fix". */
    .unexplained_lost_frac = 1.0 / 3.0,
    /* A verdict names what to fix first: a class under 30% of the lost
     * time leaves over 70% of it to causes no signal named, where one
     * larger cause may hide; near the third "unexplained" is judged on.
     * The samples' verdict passes it (measured_verdict.c); the counters'
     * findings do not yet (applied there, it turned input_slow_read's
     * short_steps variant unexplained). */
    .verdict_min_share_of_lost = 0.3,
    /* [physics] without SM activity (no GPM, no trace: A100, L4, T4,
     * GeForce) resident time counts as productive, so the lost share is only
     * the time with no kernel on the GPU, and underfilled kernels are
     * invisible. A fed loop leaves the GPU empty only at the step boundary
     * (a sync and the next step's first launches: tens of microseconds in a
     * step of milliseconds) and in the optimizer's launch burst: a few
     * percent. A tenth of the time empty (the run-to-run noise, [h200]) with
     * no class holding is something the counters cannot name: small kernels
     * finishing faster than the host refills the queue, or waits the
     * counters do not see. Say so, and name the recording that decides
     * (--trace: launch configurations and gaps), instead of "none". Only for
     * one process on one GPU: in a data-parallel job the gradient hooks run
     * host code per bucket between backward kernels and a rank waits for its
     * peers before each collective, gaps a well-run job has and the counters
     * cannot tell from the others without a trace; there the 1/3 rule holds. */
    .unexplained_lost_no_sm_frac = 0.10,
    /* without GPM the GPU-Util stand-in hides SM fill (the storm case) */
    .no_gpm_conf_factor = 0.6,
    /* [h200] launches of ~1 us kernels; a few launch latencies is ~20 us */
    .launch_gap_max_ns = 20000.0,
    /* [physics] a framework op costs the host 10-50 us and a launch 5-10 us:
     * a host that issues work never pauses for half a millisecond, while
     * preparing a batch or waiting on I/O pauses for milliseconds */
    .host_quiet_max_ns = 500000.0,
    /* [physics] a synchronizing call returns after the GPU's last work ends;
     * CUPTI's GPU timestamps moved to the host clock, and Kineto's
     * microsecond rounding, can put its end a few us before that work's */
    .sync_slack_ns = 10000.0,
};
