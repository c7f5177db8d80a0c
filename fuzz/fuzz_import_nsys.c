/* An Nsight Systems SQLite export: corrupt pages, missing tables, odd rows, imported into an in-memory
 * recording (fuzz_import.h), then the report on that recording. */
#include "fuzz_import.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_sqlite_setup();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import_memory(GW_IMPORT_NSYS, data, size);
  return 0;
}
