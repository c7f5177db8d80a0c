/* gpuwhy experiment fixed-batch: follows the Python hook's steps while a run
 * goes on and tells the recorder to stop once the loop has run the seconds
 * asked of steady steps after its warm-up (analysis/steady_steps.h). The
 * process followed is the one a comparison takes: the lowest rank, else the
 * one with most steps (analysis/step_process.h). */
#ifndef GW_COMPARE_STEADY_WATCH_H
#define GW_COMPARE_STEADY_WATCH_H

#include <gpuwhy/record.h>

#include "analysis/steady_steps.h"

struct gw_steady_watch;

struct gw_steady_watch *gw_steady_watch_new(double steady_seconds);
void gw_steady_watch_free(struct gw_steady_watch *w);
/* gw_record_opts.on_python_step, with ctx the watch. */
void gw_steady_watch_step(void *ctx, const struct gw_python_step *step);
/* gw_record_opts.on_tick, with ctx the watch: 1 (stop) once enough steady seconds were seen. */
int gw_steady_watch_tick(void *ctx, const struct gw_tick *tick);
/* Whether the run was stopped for having enough steady seconds. */
int gw_steady_watch_reached(const struct gw_steady_watch *w);

#endif
