/* nvidia-smi dmon output and --query-gpu CSV logs (gw_import_smi_buffer),
 * then the report on the recording it made. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import(gw_import_smi_buffer, data, size);
  return 0;
}
