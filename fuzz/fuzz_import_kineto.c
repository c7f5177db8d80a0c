/* A PyTorch profiler (Kineto) or Chrome trace, JSON or gzip of JSON
 * (gw_import_kineto_buffer), then the report on the recording it made. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import(gw_import_kineto_buffer, data, size);
  return 0;
}
