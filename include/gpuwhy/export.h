/* libgpuwhy public API for `gpuwhy export`: a recording as a trace in the
 * Chrome Trace Event Format, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open. */
#ifndef GPUWHY_EXPORT_H
#define GPUWHY_EXPORT_H

#include <stddef.h>
#include <stdio.h>

/* Write the trace of the recording at path to out, streaming (a recording
 * may hold millions of kernels). Returns 0 (GPUWHY_EXIT_OK) or 3
 * (GPUWHY_EXIT_INPUT) with the reason in errbuf. *nevents, when not NULL,
 * receives the number of events written. */
int gw_export_perfetto_file(const char *path, FILE *out, unsigned long long *nevents, char *errbuf, size_t errcap);

#endif
