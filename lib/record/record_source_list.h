/* The recorder's sources, one GW_RECORD_SOURCE(name) line each, for the
 * table in record/record_sources.c: gw_record_source_<name> is the source's
 * row (record/record_source.h). The order is the order of their work: they
 * open in it (each in its stage), tick in it (the GPUs first, so that a tick's
 * samples are taken as close to its time as can be), stop in it (the thread
 * sampler first, so that it samples no longer than the recording runs) and
 * finish in it; they close in reverse. Included where GW_RECORD_SOURCE is
 * defined. */
GW_RECORD_SOURCE(threads) /* where each thread of the job is, record --thread-hz (recorder.c) */
GW_RECORD_SOURCE(gpu)     /* the GPU backend (record/gpu_backends.c) and its windowed filler */
GW_RECORD_SOURCE(host)    /* /proc and /sys (sources/host.c) */
GW_RECORD_SOURCE(kmsg)    /* the kernel log: Xid, NVRM (sources/kmsg.c) */
GW_RECORD_SOURCE(trace)   /* the tracer's spool (record/trace_collect.c) */
GW_RECORD_SOURCE(nccl)    /* NCCL's debug log (record/nccl_collect.c) */
GW_RECORD_SOURCE(pyhook)  /* the Python hook's spool (record/pyhook_collect.c) */
#ifdef GW_EXTRA_RECORD_SOURCES
/* Sources compiled into a test only (tests/extra_sources/); no product
 * target defines GW_EXTRA_RECORD_SOURCES. */
#include GW_EXTRA_RECORD_SOURCES
#endif
