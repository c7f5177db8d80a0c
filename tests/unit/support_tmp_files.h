/* Temporary files of the unit tests: one private folder per test program
 * (cmocka group setup/teardown), a recording's file with its SQLite side
 * files, and a whole stream read back. Header-only so each test program,
 * built from one source, can include it. Include after <cmocka.h>. */
#ifndef GW_SUPPORT_TMP_FILES_H
#define GW_SUPPORT_TMP_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/util.h"

/* The program's private folder, made by support_tmpdir_setup. */
static inline char *support_tmpdir(void) {
  static char dir[64];
  return dir;
}

/* cmocka group setup: a fresh folder under /tmp. */
static inline int support_tmpdir_setup(void **state) {
  (void)state;
  gw_strlcpy(support_tmpdir(), "/tmp/gw_unit_XXXXXX", 64);
  return mkdtemp(support_tmpdir()) ? 0 : -1;
}

/* cmocka group teardown: the folder and all that the tests left in it. */
static inline int support_tmpdir_teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", support_tmpdir());
  return system(cmd) == 0 ? 0 : -1;
}

/* A path in the private folder. */
static inline void support_tmpdir_path(char *out, size_t cap, const char *name) {
  snprintf(out, cap, "%s/%s", support_tmpdir(), name);
}

/* Copies the file at from to to, byte for byte (a fixture to change in a test). */
static inline void support_copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

/* A recording and the -wal and -shm files SQLite may leave beside it. */
static inline void support_db_remove(const char *db) {
  char side[1100];
  unlink(db);
  snprintf(side, sizeof side, "%s-wal", db);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db);
  unlink(side);
}

/* All that was written to f, NUL-terminated (free it); *len: its length. */
static inline char *support_slurp(FILE *f, size_t *len) {
  fflush(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc((size_t)n + 1, 1);
  *len = fread(buf, 1, (size_t)n, f);
  return buf;
}

/* The whole file at path, NUL-terminated (free it); NULL where it cannot be
 * opened. */
static inline char *support_slurp_path(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t len;
  char *buf = support_slurp(f, &len);
  fclose(f);
  return buf;
}

#endif
