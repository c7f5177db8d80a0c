/* An Nsight Systems SQLite export (gw_import_nsys_buffer): corrupt pages,
 * missing tables, odd rows; then the report on the recording it made. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import(gw_import_nsys_buffer, data, size);
  return 0;
}
