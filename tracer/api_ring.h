/* Per-thread rings of API call records for full mode's callback path
 * (GPUWHY_TRACE_API_PATH=callback): the program's thread times each traced
 * CUDA call in CUPTI's enter and exit callbacks and puts one finished wire
 * record into its own ring, without locks or system calls; the tracer's
 * thread drains every ring into the output. */
#ifndef GW_TRACER_API_RING_H
#define GW_TRACER_API_RING_H

#include <stdint.h>

#include "wire.h"

/* Called on the program's thread (exit callback). The first call on a
 * thread gives it a ring; when the ring is full or no ring is left the
 * record is counted as dropped. */
void gwt_api_ring_put(const struct gw_wire_api *rec);

/* Writes every record waiting in the rings to the output (call with the
 * output lock held; one drainer at a time). Returns the records dropped
 * since the last call. */
uint64_t gwt_api_ring_drain_locked(void);

/* The calling thread's OS thread id (cached per thread). */
uint32_t gwt_api_ring_tid(void);

#endif
