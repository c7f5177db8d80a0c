/* Temporary files for the unit tests: a path to write a recording or a log
 * to, created empty so that no other process can take the name.
 * Header-only; include after <cmocka.h>. */
#ifndef GW_FIXTURE_TEMP_H
#define GW_FIXTURE_TEMP_H

#include <stdlib.h>
#include <unistd.h>

/* Creates the file named by tmpl (its last six characters XXXXXX, replaced
 * in place) and closes it; the test fails when it cannot. */
static inline void fixture_temp_file(char *tmpl) {
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  close(fd);
}

#endif
