/* The LLVMFuzzerInitialize of a target whose only set-up is SQLite's
 * (fuzz_sqlite_setup, fuzz_memory.h). Included by the target's one source
 * file, after fuzz_memory.h. */
#ifndef GW_FUZZ_SQLITE_INITIALIZE_H
#define GW_FUZZ_SQLITE_INITIALIZE_H

#include "fuzz_memory.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_sqlite_setup();
  return 0;
}

#endif
