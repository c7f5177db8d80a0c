/* The SQLite file sink of the importers, on its own: an import written to a
 * file (gw_import_*_buffer with a path: a temporary file moved into place,
 * synced), then every reader of a file on it (fuzz_recording.h). The other
 * import targets write in memory; this one keeps the file path covered.
 * The first byte picks the importer (0 Kineto, 1 nsys, 2 nvidia-smi, by its
 * value mod 3), the rest is the input. */
#include "fuzz_import.h"
#include "fuzz_sqlite_initialize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const fuzz_import_fn importers[] = {gw_import_kineto_buffer, gw_import_nsys_buffer, gw_import_smi_buffer};
  if (size < 1)
    return 0;
  fuzz_import_file(importers[data[0] % 3], data + 1, size - 1);
  return 0;
}
