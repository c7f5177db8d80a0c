/* Per-GPU statistics of the traced kernels: count, launch rate, durations,
 * kernels per step and shapes that vary between steps. The computing parts
 * are pure functions over arrays (unit-tested); gw_kernel_stats_read
 * streams a recording's kernels through the store's iterator
 * (store/store_iter.h), one GPU at a time. */
#ifndef GW_KERNEL_STATS_H
#define GW_KERNEL_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Duration buckets in powers of two: <2 us, 2-4 us, ..., 8192-16384 us, and
 * >= 16384 us. Bucket b >= 1 holds [2^b, 2^(b+1)) us. */
#define GW_KSTATS_NBUCKETS 15
#define GW_KSTATS_TOP_VARYING 3
/* Period search bounds: the longest period tried (in kernels), and the
 * share of positions where name[i] == name[i + P] must hold. */
#define GW_KSTATS_PERIOD_MAX 20000
#define GW_KSTATS_PERIOD_MIN_SHARE 0.9

enum gw_kstep_source {
  GW_KSTEPS_NONE,     /* no steps known */
  GW_KSTEPS_TABLE,    /* the recording's step table (NVTX / ProfilerStep#N ranges) */
  GW_KSTEPS_SEQUENCE, /* the repeating sequence of kernel names */
};

struct gw_kernel_varying {
  char name[96];   /* shortened kernel name */
  int64_t pairs;   /* same-position, same-name pairs of consecutive steps */
  int64_t varying; /* of those, pairs whose grid differs */
};

struct gw_kernel_stats {
  int64_t nkernels; /* 0: no traced kernels on this GPU (the rest is unset) */
  int sampled;      /* the trace ran in sampled windows: figures cover those only */
  int64_t nwindows; /* sampled: windows holding kernels */
  double traced_s;  /* first kernel start to last kernel end, or the windows' time when sampled */
  double launches_per_s;
  double dur_mean_us, dur_median_us, dur_p90_us;
  int64_t hist[GW_KSTATS_NBUCKETS];
  /* Kernel time, NCCL kernels left out, and the share of it in kernels that
   * touch every parameter once a step whatever the batch (gw_kstats_per_parameter:
   * optimizer updates, gradient clipping, AMP unscaling); NAN without names. */
  double compute_kernel_s, per_param_share;
  /* The rise in samples/s a doubled batch would give, predicted from the
   * kernels' launch configurations (gw_kstats_doubling_time): NAN without
   * launch configurations or the GPU's limits. */
  double doubling_gain;
  enum gw_kstep_source step_source;
  int64_t nsteps;
  int64_t period_kernels; /* sequence: the period (the median over windows when sampled) */
  double period_share;    /* sequence: share of positions that repeat one period later */
  double kernels_per_step_mean, kernels_per_step_median, step_median_s;
  /* shape variation: same-position, same-name kernel pairs of consecutive steps */
  int64_t shape_pairs, shape_varying;
  int nvarying; /* entries of top[], most varying pairs first */
  struct gw_kernel_varying top[GW_KSTATS_TOP_VARYING];
  /* sampled: where the windows' time went, each window from its first GPU
   * work to its last (lib/analysis/timeline.c); window_span_s 0 when not known */
  double window_span_s;
  double window_busy_share, window_launch_share, window_sync_share, window_input_share, window_comm_share,
      window_other_share;
  int window_sync_seen; /* the trace holds the host's synchronizing calls: the sync share is measured */
};

/* The time a kernel of duration_ns, of waves waves (gw_occupancy.waves), would
 * take with its batch doubled. Its blocks are assumed to double with the
 * batch and to take equal time: a launch runs in ceil(waves) rounds of
 * blocks over the SMs, so a kernel under half a wave doubles its blocks
 * into SMs that sat empty at no cost in time, and one of many waves doubles
 * its time. waves <= 0 (unknown): the time doubles. A model that leans high
 * (a kernel whose grid does not grow with the batch, a weight gradient's,
 * doubles its blocks' work instead), so its gain is an upper estimate. */
double gw_kstats_doubling_time(double duration_ns, double waves);

/* Bucket index of a kernel duration in ns. */
int gw_kstats_bucket(int64_t dur_ns);
/* Lower edge of bucket b in us (0 for the first). */
double gw_kstats_bucket_lo_us(int b);

/* The period of names[0..n) (kernel name ids in start order): the smallest
 * P in [1, min(max_p, n / 3)] whose share of i with names[i] == names[i + P]
 * is within a hair of the best share, accepted when that share is at least
 * min_share and one period holds two distinct names or more. Long sequences
 * are scored on a fixed random sample of positions, then the chosen P is
 * checked on all of them. Returns P, 0 when there is none; *share_out (may
 * be NULL) gets its share. */
size_t gw_kstats_find_period(const int32_t *names, size_t n, size_t max_p, double min_share, double *share_out);

/* Shape variation over steps given as kernel index boundaries: step s holds
 * kernels [bounds[s], bounds[s + 1]) of names[] and grid[] (x, y, z per
 * kernel), nsteps steps. For each position j present in two consecutive steps
 * with the same name, counts a pair, and a varying pair when the grids
 * differ. pairs_by_name / varying_by_name (indexed by name id, nnames long,
 * may be NULL) get the per-name counts added. */
void gw_kstats_shape_variation(const int32_t *names, const int32_t (*grid)[3], const size_t *bounds, size_t nsteps,
                               int64_t *pairs, int64_t *varying, int64_t *pairs_by_name, int64_t *varying_by_name,
                               size_t nnames);

/* One GPU's kernels in start order (start_ns ascending). */
struct gw_kernel_seq {
  size_t n;
  const int64_t *start_ns, *end_ns;
  const int32_t *name; /* dense name ids, 0 .. nnames-1 (-1 unknown) */
  const int32_t (*grid)[3];
  size_t nnames;
  const char *const *name_text; /* nnames entries, for the top varying kernels; may be NULL */
};

/* Steps given by time ranges [start, end): from a step table, or the trace
 * windows (sampled mode, where the sequence period is searched per range). */
struct gw_time_range {
  int64_t start_ns, end_ns;
};

/* Fill *out from one GPU's kernels. windows (nwindows, sorted): the sampled
 * trace's windows, or NULL for a full trace. steps (nsteps, sorted): the
 * step table's ranges, or NULL to find steps from the name sequence. */
void gw_kernel_stats_compute(const struct gw_kernel_seq *k, const struct gw_time_range *windows, size_t nwindows,
                             const struct gw_time_range *steps, size_t nsteps, struct gw_kernel_stats *out);

/* 1 when a kernel of this name does per-parameter work: PyTorch's and
 * Apex's multi_tensor_apply kernels, which run the foreach ops (the default
 * Adam, AdamW and SGD of torch.optim, clip_grad_norm_, AMP's unscale) and the
 * fused Adam/AdamW over the list of parameter tensors. Their work is the
 * parameter count, the same at any batch size. */
int gw_kstats_per_parameter(const char *name);
/* 1 for an NCCL kernel (communication, not compute) by its name. */
int gw_kstats_nccl_name(const char *name);

/* Shorten a demangled kernel name for display ("void ns::kern<...>(...)"
 * -> "ns::kern"). */
void gw_kstats_short_name(const char *name, char *dst, size_t cap);

const char *gw_kstep_source_id(enum gw_kstep_source s);

struct gw_recording;
struct gw_gpu_series;
struct gw_store;
/* Give each GPU of rec its kstats (allocated here, owned by rec), computed
 * from its kernels in the recording open in st; rec's GPUs, windows, steps
 * and trace pids are loaded already. A missing or damaged kernel table
 * leaves them empty (nkernels 0). */
void gw_kernel_stats_read(struct gw_store *st, struct gw_recording *rec);
/* A sampled trace's windows that count for g: those of the process that ran
 * on it, else all of rec's. Fills win (rec->nwindows entries at least) and
 * returns how many it holds. */
size_t gw_kstats_gpu_windows(const struct gw_recording *rec, const struct gw_gpu_series *g, struct gw_time_range *win);

#endif
