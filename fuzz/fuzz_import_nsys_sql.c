/* An Nsight Systems export built from SQL: the input is run (as fuzz_sql.h
 * allows) on an empty in-memory database, whose bytes then go through the nsys
 * importer into an in-memory recording and the report. Byte-level changes to an SQLite file rarely get past its
 * page checks; this reaches the importer's handling of odd schemas and rows
 * (missing tables, NULLs, text for numbers, unknown string ids). The seeds
 * are tests/fixtures/import/nsys_small.sql and variants of it. An export
 * imported before is not imported again (fuzz_seen.h). */
#include "fuzz_import.h"
#include "fuzz_seen.h"
#include "fuzz_sql.h"
#include "fuzz_sqlite_initialize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *sql = fuzz_cstring(data, size);
  if (fuzz_sql_refused(sql)) {
    free(sql);
    return -1;
  }
  /* the export is built in memory and handed over as bytes, as a file's would be */
  sqlite3 *db = fuzz_sql_memory_db(NULL, 0);
  fuzz_sql_exec(db, sql);
  free(sql);
  size_t n = 0;
  unsigned char *bytes = fuzz_sql_image(db, &n);
  sqlite3_close(db);
  /* an export imported before is the same work again (fuzz_seen.h) */
  if (fuzz_seen(bytes, n, 0)) {
    sqlite3_free(bytes);
    return 0;
  }
  fuzz_import_memory(GW_IMPORT_NSYS, bytes ? bytes : (const unsigned char *)"", n);
  sqlite3_free(bytes);
  return 0;
}
