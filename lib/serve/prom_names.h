/* Prometheus names for the per-GPU metrics of gpu_metrics.def. The name is
 * derived from the column name's unit suffix, converted to the base unit
 * Prometheus asks for (_pct -> _ratio, _mw -> _watts, _mhz -> _hertz,
 * _ns -> _seconds, ...), so a metric added to the .def is exported without
 * touching the exporter. Cumulative readings are counters ending in _total. */
#ifndef GW_PROM_NAMES_H
#define GW_PROM_NAMES_H

#include <stddef.h>

#include "core/sample.h"

struct gw_prom_metric {
  char name[112];   /* gpuwhy_gpu_sm_active_ratio */
  const char *type; /* "gauge" or "counter" */
  double scale;     /* stored value x scale = exported value */
  char help[512];   /* the .def's help text plus the unit */
};

/* Fill out for metric m (enum gw_gpu_metric). Returns 0, or -1 for an
 * index out of range. */
int gw_prom_gpu_metric(int m, struct gw_prom_metric *out);

/* Write a HELP text with backslash and newline escaped. Returns the length
 * or -1 when it does not fit. */
long gw_prom_help_escape(char *buf, size_t cap, const char *s);

#endif
