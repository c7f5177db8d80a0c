/* Coexistence with another CUPTI client (torch.profiler's Kineto, Nsight,
 * a sanitizer): the CUPTI functions such a client calls to arrive and to
 * leave are interposed (coexist.c, active when the tracer is in LD_PRELOAD,
 * as gpuwhy record sets it), and these hooks, implemented in inject.c, let
 * the tracer step aside before the client's call proceeds and come back
 * after it left. */
#ifndef GW_TRACER_COEXIST_H
#define GW_TRACER_COEXIST_H

#include <cupti.h>

/* The real libcupti function of that name (the copy the tracer uses, else
 * the next definition after ours, else a libcupti already loaded); NULL when
 * none is loaded. */
void *gwt_cupti_symbol(const char *name);

/* Another client is about to subscribe or register activity buffers (via:
 * the function it called): the tracer stops its windows and releases CUPTI
 * before returning. Runs on the client's thread. */
void gwt_client_arriving(const char *via);
/* The client's subscribe returned rc (its handle when CUPTI_SUCCESS). */
void gwt_client_subscribed(CUptiResult rc, CUpti_SubscriberHandle handle);
/* The client released its subscriber, or detached CUPTI altogether. */
void gwt_client_unsubscribed(CUpti_SubscriberHandle handle);
void gwt_client_finalized(void);

#endif
