/* The exporter's page: Prometheus text exposition (format 0.0.4) of one
 * window recording. Per GPU, every metric of gpu_metrics.def (labels gpu,
 * uuid, name), the clock event reasons one by one, the compute processes,
 * Xid events and lost GPUs; the host's CPU, memory, pressure and disks; and
 * the diagnosis of the window: verdict, findings and ledger shares. */
#ifndef GW_PROM_TEXT_H
#define GW_PROM_TEXT_H

#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

#define GW_PROM_MAX_GPUS 64

/* What the exporter remembers between builds: counters must never go back
 * when an event leaves the window. */
struct gw_prom_state {
  int64_t started_ns;     /* events before the exporter started are history, not counted */
  int64_t events_seen_ns; /* newest event already counted */
  const char *mode;       /* "live" or "replay" */
  double window_s;        /* the window's configured length */
  int ngpus;
  struct {
    int gpu;
    double xid_total;
    int64_t last_xid;
    int lost;
  } gpus[GW_PROM_MAX_GPUS];
  double xid_unattributed; /* Xid lines whose PCI address matched no GPU */
};

void gw_prom_state_init(struct gw_prom_state *st, int64_t started_ns, const char *mode, double window_s);

/* Write the page for the window recording at path. */
GW_NODISCARD gw_status gw_prom_write(struct gw_prom_state *st, const char *path, FILE *out, struct gw_err *err);

#endif
