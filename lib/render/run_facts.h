/* The facts of a recorded run that the analysis does not need but people
 * do: the command, the host, the driver, each GPU's UUID and name (struct
 * gw_run_facts, read by the store: store/store_run.h), for the HTML report,
 * the Perfetto export and the Prometheus exporter's labels. */
#ifndef GW_RUN_FACTS_H
#define GW_RUN_FACTS_H

#include <stdint.h>

#include "core/util.h"
#include "store/store_run.h"

struct gw_recording;
/* Read the facts of a recording loaded from its file, through the
 * connection it keeps (rec->store): no second open. Missing columns or rows
 * leave the fields at "", 0 or NAN; GW_EINPUT when rec has no store. */
GW_NODISCARD gw_status gw_run_facts_of(const struct gw_recording *rec, struct gw_run_facts *out, struct gw_err *err);

/* A JSON array of strings (the run table's command) as one line for
 * people: arguments separated by spaces, single-quoted when they hold
 * characters a shell would interpret. Text that is not such an array is
 * copied as it is. Always NUL-terminates; truncates to cap. */
void gw_command_for_people(const char *json, char *out, size_t cap);

/* The facts of GPU index gpu, or NULL. */
const struct gw_gpu_facts *gw_run_facts_gpu(const struct gw_run_facts *f, int gpu);

#endif
