/* An Nsight Systems export built from SQL: the input is run (as fuzz_sql.h
 * allows) on an empty database, which then goes through the nsys importer
 * and the report. Byte-level changes to an SQLite file rarely get past its
 * page checks; this reaches the importer's handling of odd schemas and rows
 * (missing tables, NULLs, text for numbers, unknown string ids). The seeds
 * are tests/fixtures/import/nsys_small.sql and variants of it. */
#include "fuzz_import.h"
#include "fuzz_sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char db[512];
  if (!db[0])
    fuzz_path(db, sizeof db, "export.sqlite");
  char *sql = fuzz_cstring(data, size);
  if (fuzz_sql_refused(sql)) {
    free(sql);
    return -1;
  }
  fuzz_remove_db(db);
  fuzz_sql_run(db, sql);
  free(sql);
  FILE *f = fopen(db, "rb");
  if (!f)
    return 0;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
  if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n)
    abort();
  fclose(f);
  fuzz_import(gw_import_nsys_buffer, bytes, (size_t)n);
  free(bytes);
  return 0;
}
