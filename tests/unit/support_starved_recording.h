/* The recording most report tests read: a synthetic input-starved run
 * (report_synth.h) written into the program's private folder by its cmocka
 * group setup. Header-only; include after <cmocka.h>. */
#ifndef GW_SUPPORT_STARVED_RECORDING_H
#define GW_SUPPORT_STARVED_RECORDING_H

#include "report_synth.h"
#include "support_tmp_files.h"

/* Makes the private folder and db (cap bytes) in it: seconds of one GPU
 * starved by its input pipeline. The goldens depend on seconds. */
static inline int support_starved_setup(void **state, double seconds, char *db, size_t cap) {
  if (support_tmpdir_setup(state) != 0)
    return -1;
  support_tmpdir_path(db, cap, "starved.db");
  return synth_write(db, 1, seconds, 0, gpu_starved, host_starved);
}

#endif
