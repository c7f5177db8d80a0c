/* A time interval, the unit of the tracer's timeline: the store hands the
 * traced kernels, copies and host calls to the analysis as lists of them. */
#ifndef GW_INTERVAL_H
#define GW_INTERVAL_H

#include <stdint.h>

struct gw_interval {
  int64_t start_ns, end_ns; /* CLOCK_REALTIME, end >= start */
};

#endif
