/* An import into a recording held in memory, handed back as the open store:
 * the model is read from it directly (no file, no image copied out and
 * parsed again), which is how the fuzz targets of the importers read what
 * an import wrote. The file sink is fuzzed on its own (fuzz_import_file). */
#ifndef GW_IMPORT_STORE_H
#define GW_IMPORT_STORE_H

#include <stddef.h>

#include <gpuwhy/import.h>

struct gw_store;

/* format: GW_IMPORT_KINETO, GW_IMPORT_NSYS or GW_IMPORT_SMI_DMON (either
 * nvidia-smi log). 0 with *store open (gw_store_close it), or the import's
 * exit status with the reason in errbuf and *store NULL. */
int gw_import_buffer_store(enum gw_import_format format, const void *data, size_t len, const char *name,
                           struct gw_store **store, char *errbuf, size_t errcap);

#endif
