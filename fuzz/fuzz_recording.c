/* A hostile recording file: corrupt pages, a wrong application_id or schema
 * version, tables missing or of the wrong shape, any values. */
#include "fuzz_recording.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    fuzz_path(path, sizeof path, "recording.db");
  fuzz_remove_db(path);
  fuzz_write_file(path, data, size);
  fuzz_read_recording(path, fuzz_pick(data, size, FUZZ_NREADERS), 0);
  return 0;
}
