/* The body of the targets that feed one importer's input (FUZZ_IMPORT_FORMAT,
 * defined before this header is included) into an in-memory recording
 * (fuzz_import.h), then the report on that recording. Each such target is
 * a fuzz_import_<format>.c that says what its input is and includes this. */
#ifndef GW_FUZZ_IMPORT_FORMAT_H
#define GW_FUZZ_IMPORT_FORMAT_H

#include "fuzz_import.h"
#include "fuzz_sqlite_initialize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import_memory(FUZZ_IMPORT_FORMAT, data, size);
  return 0;
}

#endif
