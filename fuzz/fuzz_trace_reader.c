/* The tracer's wire files (lib/sources/trace_reader.h), as the recorder
 * reads them: the whole file in one poll, then again in small appends with
 * a poll after each (the tracer writes while the recorder reads). Both ways
 * must hand over the same records and end with the same verdict. A third
 * pass stores the records through the recording's trace tables. */
#include <sqlite3.h>

#include "fuzz_util.h"
#include "store/store_sql.h"
#include "sources/trace_reader.h"
#include "store/store_trace.h"

struct tally {
  uint64_t calls;
  uint64_t name_bytes;
};

static gw_status on_header(void *ctx, const struct gw_wire_file_header *h) {
  (void)ctx;
  FUZZ_CHECK(h->pid != 0);
  return GW_OK;
}
static gw_status on_name(void *ctx, uint32_t pid, uint32_t id, const char *name, uint32_t len) {
  struct tally *t = ctx;
  (void)pid;
  FUZZ_CHECK(id != 0 && len <= GW_WIRE_NAME_MAX_BYTES);
  /* Touch every byte: ASan reports a name reaching past the record. */
  for (uint32_t i = 0; i < len; i++)
    t->name_bytes += (unsigned char)name[i];
  t->calls++;
  return GW_OK;
}
static gw_status on_note(void *ctx, uint32_t pid, const struct gw_wire_note *r, const char *text, uint32_t len) {
  struct tally *t = ctx;
  (void)pid;
  (void)r;
  FUZZ_CHECK(len <= GW_WIRE_NOTE_MAX_BYTES);
  for (uint32_t i = 0; i < len; i++)
    t->name_bytes += (unsigned char)text[i];
  t->calls++;
  return GW_OK;
}
#define COUNTER(fn, type)                                                                                              \
  static gw_status fn(void *ctx, uint32_t pid, const type *r) {                                                        \
    (void)pid;                                                                                                         \
    FUZZ_CHECK(r->h.size_bytes >= sizeof *r);                                                                          \
    ((struct tally *)ctx)->calls++;                                                                                    \
    return GW_OK;                                                                                                      \
  }
/* on_kernel, on_memcpy, ...: every FIXED kind of tracer/wire_kinds.h */
#define COUNTER_KIND_(KIND, id, kind, bytes, table, key, check) COUNTER(on_##kind, struct gw_wire_##kind)
GW_WIRE_KINDS(COUNTER_KIND_, GW_WIRE_NONE)

struct outcome {
  gw_status poll_rc, finish_rc;
  struct gw_err err;
  struct tally tally;
  struct gw_trace_reader_stats stats;
};

static struct gw_trace_callbacks counting(struct tally *t) {
  struct gw_trace_callbacks cb = {.ctx = t, .on_header = on_header, .on_name = on_name, .on_note = on_note};
#define CALLBACK_KIND_(KIND, id, kind, bytes, table, key, check) cb.on_##kind = on_##kind;
  GW_WIRE_KINDS(CALLBACK_KIND_, GW_WIRE_NONE)
  return cb;
}

/* Read path after the writer appended data[0..size) in pieces of chunk
 * bytes (chunk 0: all at once). */
static void read_file(const char *path, const uint8_t *data, size_t size, size_t chunk, struct outcome *o) {
  memset(o, 0, sizeof *o);
  fuzz_write_file(path, data, chunk ? 0 : size);
  struct gw_trace_reader *rd = NULL;
  if (gw_trace_reader_open(&rd, path, &o->err) != GW_OK)
    abort();
  struct gw_trace_callbacks cb = counting(&o->tally);
  FILE *f = chunk ? fopen(path, "ab") : NULL;
  size_t written = chunk ? 0 : size;
  for (;;) {
    uint64_t fresh = 0;
    o->poll_rc = gw_trace_reader_poll(rd, &cb, &fresh, &o->err);
    if (o->poll_rc != GW_OK || written == size)
      break;
    size_t n = size - written < chunk ? size - written : chunk;
    fwrite(data + written, 1, n, f);
    fflush(f);
    written += n;
  }
  if (f)
    fclose(f);
  if (o->poll_rc == GW_OK)
    o->finish_rc = gw_trace_reader_finish(rd, &o->err);
  gw_trace_reader_get_stats(rd, &o->stats);
  FUZZ_CHECK(fuzz_terminated(o->err.msg, sizeof o->err.msg));
  if (o->poll_rc != GW_OK || o->finish_rc != GW_OK)
    FUZZ_CHECK(o->err.msg[0] != '\0');
  gw_trace_reader_close(rd);
}

/* The records into the recording's tables, in memory: the tables and the
 * writer's prepared statements are made once (preparing them took most of
 * an input's time) and each input's rows are rolled back. The per-row
 * callbacks keep nothing between inputs (no batch waits in the writer). */
static void store_records(const char *path) {
  static sqlite3 *db;
  static struct gw_store_trace *st;
  struct gw_err err = {{0}};
  if (!db) {
    if (sqlite3_open(":memory:", &db) != SQLITE_OK || gw_store_trace_create_tables(db, &err) != GW_OK ||
        gw_store_trace_open(&st, db, &err) != GW_OK) {
      fprintf(stderr, "trace tables: %s\n", err.msg);
      abort();
    }
  }
  if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    abort();
  struct gw_trace_reader *rd = NULL;
  if (gw_trace_reader_open(&rd, path, &err) != GW_OK)
    abort();
  struct gw_trace_callbacks cb = gw_store_trace_callbacks(st);
  (void)gw_trace_reader_poll(rd, &cb, NULL, &err);
  (void)gw_trace_reader_finish(rd, &err);
  gw_trace_reader_close(rd);
  if (sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    fuzz_path(path, sizeof path, "trace.gwt");
  struct outcome whole, pieces;
  read_file(path, data, size, 0, &whole);
  /* Piece sizes that cut headers and records at odd places. */
  size_t chunk = 1 + size % 61;
  read_file(path, data, size, chunk, &pieces);
  FUZZ_CHECK(whole.poll_rc == pieces.poll_rc);
  FUZZ_CHECK(whole.finish_rc == pieces.finish_rc);
  FUZZ_CHECK(whole.tally.calls == pieces.tally.calls);
  FUZZ_CHECK(whole.tally.name_bytes == pieces.tally.name_bytes);
  FUZZ_CHECK(whole.stats.records == pieces.stats.records);
  FUZZ_CHECK(whole.stats.skipped_unknown == pieces.stats.skipped_unknown);
  FUZZ_CHECK(strcmp(whole.err.msg, pieces.err.msg) == 0);
  /* The header callback is not a record. */
  FUZZ_CHECK(whole.stats.records == whole.tally.calls);
  store_records(path);
  return 0;
}
