/* The events a source emits into its sink during a test: every one counted,
 * the first SUPPORT_EVENTS_KEPT kept to look at. Header-only. */
#ifndef GW_SUPPORT_EVENT_CAPTURE_H
#define GW_SUPPORT_EVENT_CAPTURE_H

#include "core/sample.h"

#define SUPPORT_EVENTS_KEPT 16

struct support_events {
  int n; /* all received, also past the kept ones */
  struct gw_event ev[SUPPORT_EVENTS_KEPT];
};

/* The sink's callback: ctx is a struct support_events. */
static inline void support_events_add(void *ctx, const struct gw_event *ev) {
  struct support_events *e = ctx;
  if (e->n < SUPPORT_EVENTS_KEPT)
    e->ev[e->n] = *ev;
  e->n++;
}

#endif
