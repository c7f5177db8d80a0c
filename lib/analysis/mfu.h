/* Model FLOPs utilisation per GPU: the FLOPs of the step the Python hook
 * counted, over the steady step time, against the GPU's dense peak for the
 * dtypes the step used (analysis/gpu_peaks.h), at the data sheet's clock and
 * at the clock the GPU ran at. */
#ifndef GW_MFU_H
#define GW_MFU_H

#include <stdint.h>

#include "store/store_model.h"

struct gw_mfu {
  int measured;                  /* 0: no counted step for this GPU: everything below unknown */
  const char *model;             /* the peak table's GPU model, NULL: not in the table (no peak, no MFU) */
  double flops_per_step;         /* FlopCounterMode's count of one step, forward and backward */
  double step_s;                 /* the steady step time of that process (median, first step left out) */
  double achieved_tflops;        /* flops_per_step / step_s / 1e12 */
  char dtype_label[48];          /* "BF16", "BF16 92% + FP32 8%"; "BF16 (assumed)" when the hook gave no split */
  double peak_tflops;            /* dense peak for that mix at the data sheet's clock, NAN unknown */
  double peak_clock_mhz;         /* the clock that peak assumes */
  double mfu_pct;                /* achieved against peak_tflops, NAN unknown */
  double run_clock_mhz;          /* median SM clock while the GPU was loaded, NAN unknown */
  double clock_peak_tflops;      /* peak_tflops scaled to run_clock_mhz, NAN unknown */
  double mfu_at_clock_pct;       /* achieved against clock_peak_tflops */
  double counted_step_s;         /* the counted step's wall time, NAN unknown */
  double neighbours_step_s;      /* median of its neighbours' (5 either side) */
  double counting_cost_pct;      /* counted_step_s against neighbours_step_s, in % (its one-off cost) */
  int64_t batch_size, step, pid; /* of the counted step, -1 unknown */
};

/* out[ngpus]: the counted step that belongs to each GPU (the process that
 * ran most kernels on it, else its rank, else the only one for one GPU).
 * sm_clock_med_mhz[gi]: the GPU's median loaded SM clock, NAN unknown. */
void gw_mfu_build(const struct gw_recording *rec, const double *sm_clock_med_mhz, struct gw_mfu *out);

#endif
