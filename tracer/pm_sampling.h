/* CUPTI PM sampling inside the traced program (pm_sampling.c), opt-in with
 * GPUWHY_TRACE_PM_SAMPLING=1. */
#ifndef GW_TRACER_PM_SAMPLING_H
#define GW_TRACER_PM_SAMPLING_H

/* 1 when GPUWHY_TRACE_PM_SAMPLING=1 asks for it and cupti_lib has PM
 * sampling: the tracer then keeps CUPTI attached between sampled windows
 * (cuptiFinalize would take the sampler's CUPTI state away under it). */
int gwt_pm_sampling_requested(void *cupti_lib);

/* Starts the sampling thread when asked to, with the functions of the
 * already opened libcupti; notes why not otherwise. Call once, after the
 * output file is open. */
void gwt_pm_sampling_start(void *cupti_lib);

/* Stops the thread at the program's end: a last decode, then Stop, Disable
 * and host Deinitialize; the images and the retained context are left to
 * the process's end. Waits at most 2 s; idempotent, a no-op in a forked
 * child. Called from exit handlers and, through the exported
 * gpuwhy_tracer_pm_stop, from the Python start-up hook's atexit. */
void gwt_pm_sampling_stop(void);

#endif
