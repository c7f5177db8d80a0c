/* The importers of other tools' traces (include/gpuwhy/import.h), through
 * their in-memory entry points: the input becomes a recording in the
 * scratch folder, or the import fails with a message and leaves no file.
 * A recording an import wrote must then open and give a report. */
#ifndef GW_FUZZ_IMPORT_H
#define GW_FUZZ_IMPORT_H

#include <gpuwhy/import.h>

#include "fuzz_recording.h"

typedef int (*fuzz_import_fn)(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                              size_t errcap);

static inline void fuzz_import(fuzz_import_fn fn, const uint8_t *data, size_t size) {
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
