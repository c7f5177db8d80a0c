/* A record kind added with one file: tests/wire17/wire_kinds_extra.h gives
 * the reader and the store's trace writer (compiled again into this test
 * with GW_WIRE_EXTRA_KINDS) a seventeenth kind, TEST_SPAN. A wire file with
 * such records is read, checked and written to its own table with no other
 * line of code; the product's build never has the kind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tracer/wire_encode.h"
#include "store/store_sql.h"
#include "sources/trace_reader.h"
#include "store/store_trace.h"
#include "../unit/fixture_temp.h"
#include "../unit/fixture_sql.h"
#include "../unit/support_test_main.h"

#define TEST_PID 4242u
#define T0_NS 1700000000000000000ull

_Static_assert(GW_WIRE_TEST_SPAN == 17 && GW_WIRE_TYPE_COUNT == 18, "the extra kind follows the product's 16");

/* Writes a wire file of a header and the given TEST_SPAN records. */
static void write_file(const char *path, const struct gw_wire_test_span *recs, size_t n) {
  struct gw_wire_file_header h;
  gw_wire_file_header_init(&h, TEST_PID, T0_NS, 130001, GW_WIRE_MODE_FULL, 0, 0);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(&h, sizeof h, 1, f), 1);
  assert_int_equal(fwrite(recs, sizeof *recs, n, f), n);
  fclose(f);
}

static struct gw_wire_test_span test_span(uint64_t start_ns, uint64_t end_ns, uint32_t device, uint32_t value) {
  struct gw_wire_test_span r;
  gw_wire_test_span_init(&r, 0);
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.device = device;
  r.value = value;
  return r;
}

/* Reads path into a fresh in-memory recording; returns the reader's status. */
static gw_status read_into(const char *path, sqlite3 *db, struct gw_err *err) {
  struct gw_store_trace *st = NULL;
  assert_int_equal(gw_store_trace_create_tables(db, err), GW_OK);
  assert_int_equal(gw_store_trace_open(&st, db, err), GW_OK);
  struct gw_trace_callbacks cb = gw_store_trace_callbacks(st);
  assert_non_null(cb.on_test_span);
  struct gw_trace_reader *rd = NULL;
  assert_int_equal(gw_trace_reader_open(&rd, path, err), GW_OK);
  gw_status rc = gw_trace_reader_poll(rd, &cb, NULL, err);
  if (rc == GW_OK)
    rc = gw_trace_reader_finish(rd, err);
  gw_trace_reader_close(rd);
  gw_store_trace_close(st);
  return rc;
}

/* Writes the records to a wire file and reads it into a fresh in-memory
 * recording *db (the caller closes it); returns the reader's status. */
static gw_status read_records(const struct gw_wire_test_span *recs, size_t n, sqlite3 **db, struct gw_err *err) {
  char path[] = "/tmp/gw_wire17_XXXXXX";
  fixture_temp_file(path);
  write_file(path, recs, n);
  *db = NULL;
  assert_int_equal(sqlite3_open(":memory:", db), SQLITE_OK);
  gw_status rc = read_into(path, *db, err);
  unlink(path);
  return rc;
}

static void test_extra_kind_is_stored(void **state) {
  (void)state;
  const struct gw_wire_test_span recs[] = {test_span(T0_NS + 100, T0_NS + 250, 3, 7),
                                           test_span(T0_NS + 300, T0_NS + 300, 1, 0)};
  sqlite3 *db;
  struct gw_err err = {{0}};
  assert_int_equal(read_records(recs, 2, &db, &err), GW_OK);

  sqlite3_stmt *s = fixture_first_row(db, "SELECT pid, device, start_ns, end_ns, value FROM trace_test_span"
                                          " ORDER BY start_ns");
  assert_int_equal(sqlite3_column_int64(s, 0), TEST_PID);
  assert_int_equal(sqlite3_column_int64(s, 1), 3);
  assert_int_equal(sqlite3_column_int64(s, 2), (int64_t)(T0_NS + 100));
  assert_int_equal(sqlite3_column_int64(s, 3), (int64_t)(T0_NS + 250));
  assert_int_equal(sqlite3_column_int64(s, 4), 7);
  assert_int_equal(sqlite3_step(s), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int64(s, 1), 1);
  assert_int_equal(sqlite3_column_type(s, 4), SQLITE_NULL); /* NONZERO: 0 is stored as NULL */
  assert_int_equal(sqlite3_step(s), SQLITE_DONE);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

/* The SPAN check of the table's row applies to the new kind with no code. */
static void test_extra_kind_is_checked(void **state) {
  (void)state;
  const struct gw_wire_test_span bad = test_span(T0_NS + 500, T0_NS + 400, 0, 1);
  sqlite3 *db;
  struct gw_err err = {{0}};
  assert_int_equal(read_records(&bad, 1, &db, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "TEST_SPAN record: end"));
  sqlite3_close(db);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_extra_kind_is_stored),
    cmocka_unit_test(test_extra_kind_is_checked),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
