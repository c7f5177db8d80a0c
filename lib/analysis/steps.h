/* Step times: from the step table when the program marked its steps, else
 * estimated from the rhythm of the activity series. */
#ifndef GW_STEPS_H
#define GW_STEPS_H

#include <stddef.h>
#include <stdint.h>

/* Estimate step boundaries from activity a[] at times t_ns[] (n ticks):
 * each rise of activity across the midpoint between its p10 and p90 starts
 * a step. Writes up to cap step durations (seconds) into dur_s and returns
 * how many. Returns 0 when the series has no visible rhythm (p90 - p10 below
 * min_swing) or fewer than three rises. */
size_t gw_steps_from_activity(const int64_t *t_ns, const double *a, size_t n, double min_swing, double *dur_s,
                              size_t cap);

#endif
