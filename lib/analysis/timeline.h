/* Busy time and gap classification over traced intervals (the tracer's
 * kernel and memcpy tables). Pure functions over arrays, so the ledger can
 * use them when a recording carries a timeline. */
#ifndef GW_TIMELINE_H
#define GW_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/interval.h"

/* Sort iv by start and merge overlapping or touching intervals in place;
 * returns the new count. Busy time is this union across streams, never the
 * per-stream sum. */
size_t gw_interval_union(struct gw_interval *iv, size_t n);
/* Total length of a merged (disjoint, sorted) list clipped to [t0, t1). */
int64_t gw_interval_total_ns(const struct gw_interval *merged, size_t n, int64_t t0, int64_t t1);
/* Length of a (merged) minus its overlap with (merged) b: the part of a that
 * nothing in b covers. */
int64_t gw_interval_uncovered_ns(const struct gw_interval *a, size_t na, const struct gw_interval *b, size_t nb);
/* Whether t lies inside one of the n intervals of a merged, sorted list. */
int gw_interval_holds(const struct gw_interval *merged, size_t n, int64_t t);

/* Where the idle gaps of a traced GPU went. */
struct gw_gap_split {
  int64_t busy_ns;           /* union of compute kernels and copies other than host-to-device */
  int64_t comm_ns;           /* NCCL kernel time not overlapped by compute or copies */
  int64_t idle_input_ns;     /* host-to-device copies with no kernel beside them, gaps that end in one, and
                                idle_data_wait_ns */
  int64_t idle_data_wait_ns; /* the part of gaps during which the loop waited in the DataLoader */
  int64_t idle_sync_ns;      /* gaps the host opened by waiting for the GPU in a synchronizing call */
  int64_t idle_launch_ns;    /* gaps shorter than a few launch latencies, and host_issue_ns */
  int64_t host_issue_ns;     /* longer gaps through which the host kept making CUDA calls */
  int64_t idle_other_ns;     /* all other gaps */
  int64_t long_gaps;         /* count of gaps in idle_other (for periodicity evidence) */
  int64_t sync_gaps;         /* count of gaps in idle_sync */
};

/* What gw_timeline_split classifies: one GPU's traced intervals in
 * [t0, t1). Each list may be empty and is merged in place. */
struct gw_timeline_input {
  struct gw_interval *compute; /* non-NCCL kernels */
  size_t ncompute;
  struct gw_interval *nccl; /* NCCL kernels */
  size_t nnccl;
  struct gw_interval *h2d; /* host-to-device copies */
  size_t nh2d;
  struct gw_interval *other_copies;
  size_t nother;
  struct gw_interval *api; /* the host's traced CUDA calls */
  size_t napi;
  struct gw_interval *syncs; /* host calls that wait for the GPU (synchronize, blocking copies) */
  size_t nsyncs;
  /* the training loop blocked in the DataLoader (analysis/gpu_loop.h), merged and sorted, never changed */
  const struct gw_interval *waits;
  size_t nwaits;
  int64_t t0, t1;
  int64_t launch_gap_max_ns; /* the longest gap still counted as launch latency */
  int64_t host_quiet_max_ns; /* a longer gap is launch-bound when no stretch of it longer than this passes
                                without a host CUDA call */
  int64_t sync_slack_ns;     /* a sync counts as waiting at the gap's start when it ended at most this before it
                                (host and GPU timestamps) */
};

/* The first start and the last end over the input's GPU work (compute,
 * NCCL, copies) into *t0 and *t1; 0 when it holds none (both left 0). */
int gw_timeline_work_span(const struct gw_timeline_input *in, int64_t *t0, int64_t *t1);

/* Classify the input's span, in this order: the part of a gap during
 * which the loop waited for its data is input; a gap that ends in a
 * host-to-device copy is input; one that opens while the host waits in a
 * synchronizing call, and that the host then ends promptly (short, or never
 * quiet), is sync; a short gap, or one through which the host kept calling
 * CUDA, is launch; the rest is other. */
void gw_timeline_split(struct gw_timeline_input *in, struct gw_gap_split *out);

/* The same over sampled trace windows: each window's intervals (those wholly
 * inside it; API calls and syncs that overlap it) are classified from its
 * first GPU work to its last, and the splits summed into *sum. The input's
 * lists are not changed. Returns the summed span in ns (0: no work in any
 * window). */
int64_t gw_timeline_split_windows(const struct gw_timeline_input *in, const struct gw_interval *windows,
                                  size_t nwindows, struct gw_gap_split *sum);

#endif
