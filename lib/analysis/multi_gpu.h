/* The multi-GPU summary: with two or more GPUs the slowest card
 * sets the pace, communication is a bubble, and the transport may be the
 * wrong one. GPU-Util cannot tell the ranks apart (a rank waiting in an NCCL
 * kernel spins and reads as busy); SM and tensor activity, SM clocks and the
 * NCCL kernel time of the timeline can. Built from the diagnosis inputs:
 * the loaded recording, the per-GPU profiles and ledgers, and the per-tick
 * dip flags the analysis already computed. */
#ifndef GW_MULTI_GPU_H
#define GW_MULTI_GPU_H

#include "analysis/diagnosis_model.h"
#include "analysis/nccl_transport.h"

/* Why the straggler is slow, from its own profile and ledger. */
enum gw_straggler_cause {
  GW_STRAGGLER_UNKNOWN,
  GW_STRAGGLER_MORE_WORK,     /* more compute per step than its peers */
  GW_STRAGGLER_CLOCKS,        /* the same work at lower SM clocks (power cap, lower limit) */
  GW_STRAGGLER_THROTTLE,      /* thermal or hardware slowdown */
  GW_STRAGGLER_INPUT,         /* its input pipeline stalls */
  GW_STRAGGLER_OTHER_PROCESS, /* another process shares its GPU */
};
/* Its stable id; render/label_text.c words it (gw_straggler_cause_text). */
const char *gw_straggler_cause_id(enum gw_straggler_cause c);

enum gw_mgpu_timeline { GW_MGPU_NO_TIMELINE, GW_MGPU_FULL, GW_MGPU_SAMPLED };
/* "none", "full", "sampled" */
const char *gw_mgpu_timeline_id(enum gw_mgpu_timeline t);

/* One GPU that worked. NAN where unknown. */
struct gw_mgpu_gpu {
  int index; /* into the diagnosis's profiles and ledgers */
  int gpu;   /* the recording's GPU id */
  int node, node_gpu;
  char label[96]; /* "GPU 1", or "host-b GPU 1" across nodes */
  int64_t pid;    /* the rank's process (kernel table), 0 unknown */
  int rank;       /* NCCL rank, -1 unknown */
  double util_med_pct, sm_med_pct, tensor_med_pct, sm_clock_med_mhz, power_limit_w;
  double busy_s;   /* active ticks weighted by GPU-Util: time a kernel was resident */
  double active_s; /* the GPU's working span */
  /* from the kernel timeline, over covered_s (the working span, or the sampled windows inside it) */
  double covered_s, compute_s, nccl_s, overlap_s, exposed_s;
  double nccl_share;   /* nccl_s / covered_s */
  double overlap_frac; /* overlap_s / nccl_s: NCCL time hidden behind compute on the same GPU */
  double work_rate;    /* busiest math pipe (else SM) activity x SM clock: cycles of work per second */
  double work_s;       /* compute_s x SM clock / max clock: compute at full clock, NAN without timeline */
  double idle_input_share, comm_share; /* ledger rows over the active time */
  double solo_dip_share;               /* share of the common active time it dipped while no other GPU did */
  int procs_max;
  char transport[64]; /* its rank's NCCL transports, "" unknown */
};

struct gw_multi_gpu {
  int ngpus; /* GPUs that worked (2 or more) */
  struct gw_mgpu_gpu *gpus;
  int nnodes;
  enum gw_mgpu_timeline timeline;
  double sm_spread_pts;       /* highest minus lowest SM activity median, NAN without GPM */
  double sm_spread_limit_pts; /* the spread at which the GPUs count as doing unequal work (thresholds.h) */
  int sm_spread_unequal;      /* 1: sm_spread_pts at or above the limit; 0 below it or unknown */
  int sm_hi, sm_lo;           /* indices into gpus, -1 */
  double nccl_spread;         /* highest minus lowest NCCL share, NAN without timeline */
  double exposed_share;       /* all GPUs: NCCL time not overlapped / covered time, NAN without timeline */
  double shared_dip_share;    /* share of the common active time in which every GPU dipped at once */
  double solo_dip_share;      /* the largest per-GPU solo dip share */
  int imbalanced;             /* SM spread or NCCL-share spread above its threshold */
  int straggler;              /* index into gpus, -1 none */
  enum gw_straggler_cause cause;
  double cause_ratio; /* straggler over the peers' median: work (MORE_WORK), clock (CLOCKS), input share gap */
  int slow_transport; /* the NCCL log shows a slow path between GPUs */
  struct gw_nccl_summary nccl;
};

/* The summary of a diagnosed recording, or NULL with fewer than two GPUs
 * that worked. dips[i]: the analysis's dip flag per gpu_sample tick of GPU
 * i (may be NULL). Free with gw_multi_gpu_free. */
struct gw_multi_gpu *gw_multi_gpu_build(const struct gw_recording *rec, const struct gw_diagnosis *dx,
                                        const unsigned char *const *dips);
void gw_multi_gpu_free(struct gw_multi_gpu *m);

/* Length of the intersection of two merged (sorted, disjoint) interval
 * lists. */
int64_t gw_interval_overlap_ns(const struct gw_interval *a, size_t na, const struct gw_interval *b, size_t nb);

#endif
