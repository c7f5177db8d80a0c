/* The importers of other tools' traces (include/gpuwhy/import.h), through
 * their in-memory entry points. fuzz_import_memory: the import writes its
 * recording into an in-memory store (gw_import_buffer_store), whose model is
 * then loaded and diagnosed as `report` does (fuzz_memory.h): no file, no
 * image copied out and parsed again. A recording an import wrote must give
 * a report; a failed import must say why. fuzz_import_file: the same through
 * the SQLite file sink and every reader of a file (fuzz_import_file.c only). */
#ifndef GW_FUZZ_IMPORT_H
#define GW_FUZZ_IMPORT_H

#include <gpuwhy/import.h>

#include "import/import_store.h"

#include "fuzz_memory.h"
#include "fuzz_recording.h"

static inline void fuzz_import_memory(enum gw_import_format format, const uint8_t *data, size_t size) {
  struct gw_store *st = NULL;
  char msg[1024] = "";
  int rc = gw_import_buffer_store(format, data, size, "fuzz-input", &st, msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || rc == 3);
  FUZZ_CHECK(fuzz_terminated(msg, sizeof msg));
  if (rc != 0) {
    FUZZ_CHECK(msg[0] != '\0');
    FUZZ_CHECK(st == NULL);
    return;
  }
  FUZZ_CHECK(st != NULL);
  char verdict[64], why[1024];
  if (fuzz_read_store(st, FUZZ_RENDER_JSON, verdict, sizeof verdict, why, sizeof why) != 0) {
    fprintf(stderr, "gpuwhy cannot report on a recording it imported: %s\n", why);
    abort();
  }
  gw_store_close(st);
}

typedef int (*fuzz_import_fn)(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                              size_t errcap);

static inline void fuzz_import_file(fuzz_import_fn fn, const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    fuzz_path(path, sizeof path, "imported.db");
  fuzz_remove_db(path);
  char msg[1024] = "";
  int rc = fn(data, size, "fuzz-input", path, msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || rc == 3);
  FUZZ_CHECK(fuzz_terminated(msg, sizeof msg));
  if (rc != 0) {
    FUZZ_CHECK(msg[0] != '\0');
    FUZZ_CHECK(access(path, F_OK) != 0); /* the output is replaced only by a good import */
    return;
  }
  fuzz_read_recording(path, fuzz_pick(data, size, FUZZ_NREADERS), 1);
}

#endif
