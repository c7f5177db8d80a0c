/* A hostile recording file: corrupt pages, a wrong application_id or schema
 * version, tables missing or of the wrong shape, any values. Read from
 * memory through the checks and the loader of `report` (fuzz_memory.h);
 * one input in 64 also goes through a file to every reader of a path
 * (fuzz_recording.h: read-write open, HTML, Perfetto, compare summary). */
#include "fuzz_memory.h"
#include "fuzz_recording.h"
#include "fuzz_sqlite_initialize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    fuzz_path(path, sizeof path, "recording.db");
  unsigned pick = fuzz_pick(data, size, 64);
  char verdict[64], msg[1024];
  int rc =
      fuzz_read_image(data, size, (enum fuzz_render)(pick % FUZZ_NRENDERS), verdict, sizeof verdict, msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || (rc == 3 && msg[0] != '\0'));
  if (pick == 63) {
    fuzz_remove_db(path);
    fuzz_write_file(path, data, size);
    fuzz_read_recording(path, fuzz_pick(data, size, FUZZ_NREADERS), 0);
  }
  return 0;
}
