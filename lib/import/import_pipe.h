/* A writer thread between a parser and the sink: the parser queues records
 * in batches and goes on parsing while the writer inserts the previous batch
 * into SQLite, so a large import uses both cores. A few batches are in flight
 * at most, so memory stays bounded. Strings given by pointer (domain, source)
 * must be literals; names are copied. */
#ifndef GW_IMPORT_PIPE_H
#define GW_IMPORT_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "../../tracer/wire.h"
#include "core/util.h"
#include "import/import_sink.h"

struct gw_pipe;

GW_NODISCARD gw_status gw_pipe_start(struct gw_pipe **out, struct gw_import_sink *sink, struct gw_err *err);

/* Each returns GW_OK, or the writer's failure (its message comes from
 * gw_pipe_finish): the parser should stop then. device is the CUDA device,
 * mapped to a recording GPU by the writer. */
GW_NODISCARD gw_status gw_pipe_kernel(struct gw_pipe *p, const struct gw_wire_kernel *k, uint32_t device,
                                      const char *name, size_t name_full_len);
GW_NODISCARD gw_status gw_pipe_memcpy(struct gw_pipe *p, const struct gw_wire_memcpy *m, uint32_t device);
GW_NODISCARD gw_status gw_pipe_memset(struct gw_pipe *p, const struct gw_wire_memset *m, uint32_t device);
GW_NODISCARD gw_status gw_pipe_sync(struct gw_pipe *p, const struct gw_wire_sync *y);
GW_NODISCARD gw_status gw_pipe_api(struct gw_pipe *p, const struct gw_wire_api *a);
GW_NODISCARD gw_status gw_pipe_marker(struct gw_pipe *p, const struct gw_wire_marker *m, const char *name,
                                      size_t name_full_len, const char *domain);
GW_NODISCARD gw_status gw_pipe_step(struct gw_pipe *p, int64_t start_ns, int64_t end_ns, int64_t step,
                                    const char *source);
GW_NODISCARD gw_status gw_pipe_set_pid(struct gw_pipe *p, int64_t pid);
GW_NODISCARD gw_status gw_pipe_device(struct gw_pipe *p, const struct gw_sink_device *d);

/* Hand over the last batch, wait for the writer and stop it. The writer's
 * error, if any, is returned with its message in err. */
GW_NODISCARD gw_status gw_pipe_finish(struct gw_pipe *p, struct gw_err *err);

#endif
