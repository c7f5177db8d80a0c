/* What each rule reads to see its class, and what a recording holds: a
 * class whose rule finds none of its signals in the recording is "not
 * measurable here", said as a note, never "absent". */
#ifndef GW_RULE_SIGNALS_H
#define GW_RULE_SIGNALS_H

#include "analysis/diagnosis_model.h"
#include "store/store_model.h"

/* The signals a rule may read (struct gw_rule's sees_with). */
enum gw_signal {
  GW_SIGNAL_GPU_ACTIVITY = 1u << 0, /* GPU-Util or SM activity, tick by tick */
  GW_SIGNAL_SM_ACTIVITY = 1u << 1,  /* SM activity: GPM, estimated from a kernel trace, or PM sampling */
  GW_SIGNAL_KERNEL_TRACE = 1u << 2, /* the kernel timeline, whole or in windows */
  GW_SIGNAL_HOST_CPU = 1u << 3,     /* the job's CPU time, sampled per process */
  GW_SIGNAL_STEPS = 1u << 4,        /* the training loop's steps (the Python hook, NVTX ranges) */
  GW_SIGNAL_STACKS = 1u << 5,       /* the training thread's stack or the job's thread samples */
  GW_SIGNAL_CLOCKS = 1u << 6,       /* the SM clock or its clock event reasons */
};

/* The signals this recording holds (enum gw_signal bits). */
unsigned gw_recording_signals(const struct gw_recording *rec);

#endif
