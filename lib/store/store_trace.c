#include "store_trace.h"
#include "store_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file header's row; the record kinds' tables follow from wire_kinds.h.
 * Timestamps are CLOCK_REALTIME ns (CUPTI's base on Linux); ids and
 * enumerations keep CUPTI's numbers (see tracer/wire.h). */
static const char PROCESS_SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS trace_process (pid INTEGER NOT NULL, start_ns INTEGER, cupti_version INTEGER,"
    " mode TEXT, window_ms INTEGER, period_ms INTEGER, wire_version TEXT);";
static const char PROCESS_INSERT[] = "INSERT INTO trace_process VALUES (?,?,?,?,?,?,?)";

/* Statements are indexed by wire type; type 0 is never a record and holds
 * the process row. */
#define ST_PROCESS 0
#define ST_COUNT GW_WIRE_TYPE_COUNT

/* Each kind's columns, "name TYPE", in its table's order. */
#define COLUMN_DECL_(column, type, bind, value) #column " " type,
#define COLUMNS_(KIND, id, kind, bytes, table, key, check)                                                             \
  static const char *const COLUMNS_##kind[] = {GW_WIRE_COLUMNS_##KIND(COLUMN_DECL_)};
GW_WIRE_KINDS(COLUMNS_, COLUMNS_)
#undef COLUMNS_
#undef COLUMN_DECL_
#define NCOLUMNS(kind) ((int)(sizeof COLUMNS_##kind / sizeof COLUMNS_##kind[0]))

struct trace_table {
  const char *name;
  const char *key; /* table constraint, "" for none; a keyed table ignores a repeated row */
  const char *const *columns;
  int ncolumns;
};

static const struct trace_table TABLES[ST_COUNT] = {
#define TABLE_(KIND, id, kind, bytes, table, key, check)                                                               \
  [GW_WIRE_##KIND] = {#table, key, COLUMNS_##kind, NCOLUMNS(kind)},
    GW_WIRE_KINDS(TABLE_, TABLE_)
#undef TABLE_
};

/* Batched inserts (gw_store_trace_batch_callbacks): the three tables that
 * take most rows get one multi-row INSERT per BATCH_ROWS rows, which costs
 * SQLite about 40% less per row than a statement per row. */
#define BATCH_ROWS 32
#define BATCHED_KINDS(B) B(KERNEL, kernel) B(API, api) B(MARKER, marker)
/* clang-format off */
enum batch_id {
#define BATCH_ID_(KIND, kind) B_##KIND,
  BATCHED_KINDS(BATCH_ID_)
#undef BATCH_ID_
  B_COUNT
};
/* clang-format on */
static const enum gw_wire_type BATCH_TYPE[B_COUNT] = {
#define BATCH_TYPE_(KIND, kind) [B_##KIND] = GW_WIRE_##KIND,
    BATCHED_KINDS(BATCH_TYPE_)
#undef BATCH_TYPE_
};

struct gw_store_trace {
  sqlite3 *db;
  char *insert_sql[ST_COUNT];
  sqlite3_stmt *stmt[ST_COUNT];
  sqlite3_stmt *multi[B_COUNT];
  int pending[B_COUNT]; /* rows waiting for their batch */
#define BATCH_ROWS_(KIND, kind)                                                                                        \
  struct {                                                                                                             \
    uint32_t pid;                                                                                                      \
    struct gw_wire_##kind r;                                                                                           \
  } kind##_rows[BATCH_ROWS];
  BATCHED_KINDS(BATCH_ROWS_)
#undef BATCH_ROWS_
  struct gw_err last_err;
};

/* A growing string for the generated SQL. */
struct sql_text {
  char *s;
  size_t len, cap;
};

static void sql_add(struct sql_text *t, const char *piece) {
  size_t n = strlen(piece);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->s = gw_xrealloc(t->s, t->cap);
  }
  memcpy(t->s + t->len, piece, n + 1);
  t->len += n;
}

/* "CREATE TABLE IF NOT EXISTS name (col TYPE, ...KEY);" */
static void sql_create(struct sql_text *t, const struct trace_table *tb) {
  sql_add(t, "CREATE TABLE IF NOT EXISTS ");
  sql_add(t, tb->name);
  sql_add(t, " (");
  for (int i = 0; i < tb->ncolumns; i++) {
    if (i)
      sql_add(t, ", ");
    sql_add(t, tb->columns[i]);
  }
  sql_add(t, tb->key);
  sql_add(t, ");");
}

/* "INSERT [OR IGNORE] INTO name VALUES (?,...)", with the "(?,...)" group
 * rows times. */
static char *sql_insert(const struct trace_table *tb, int rows) {
  struct sql_text t = {0};
  sql_add(&t, tb->key[0] ? "INSERT OR IGNORE INTO " : "INSERT INTO ");
  sql_add(&t, tb->name);
  sql_add(&t, " VALUES ");
  for (int r = 0; r < rows; r++) {
    sql_add(&t, r ? ",(" : "(");
    for (int i = 0; i < tb->ncolumns; i++)
      sql_add(&t, i ? ",?" : "?");
    sql_add(&t, ")");
  }
  return t.s;
}

gw_status gw_store_trace_create_tables(sqlite3 *db, struct gw_err *err) {
  struct sql_text schema = {0};
  sql_add(&schema, PROCESS_SCHEMA);
  for (int i = 1; i < ST_COUNT; i++)
    sql_create(&schema, &TABLES[i]);
  char *msg = NULL;
  gw_status rc = GW_OK;
  if (sqlite3_exec(db, schema.s, NULL, NULL, &msg) != SQLITE_OK) {
    gw_err_set(err, "cannot create the tracer tables: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    rc = GW_EIO;
  }
  free(schema.s);
  return rc;
}

/* The first of the tracer's tables db lacks, NULL when it has them all, from
 * SQLite's parsed schema (gw_store_table_exists), so that a file without them
 * is refused at open. */
static const char *missing_table(sqlite3 *db) {
  for (int i = 0; i < ST_COUNT; i++) {
    const char *name = i == ST_PROCESS ? "trace_process" : TABLES[i].name;
    if (!gw_store_table_exists(db, name))
      return name;
  }
  return NULL;
}

gw_status gw_store_trace_open(struct gw_store_trace **out, sqlite3 *db, struct gw_err *err) {
  *out = NULL;
  const char *missing = missing_table(db);
  if (missing) {
    gw_err_set(err, "cannot write the tracer's rows: the recording has no table %s", missing);
    return GW_EIO;
  }
  /* statements are prepared at their first row: an import or a run that
   * traces a few kinds does not pay for all of them */
  struct gw_store_trace *st = gw_xcalloc(1, sizeof *st);
  st->db = db;
  for (int i = 0; i < ST_COUNT; i++)
    st->insert_sql[i] = i == ST_PROCESS ? gw_xstrdup(PROCESS_INSERT) : sql_insert(&TABLES[i], 1);
  *out = st;
  return GW_OK;
}

/* The one-row statement of id, prepared at its first use; NULL (the reason
 * in last_err) when SQLite refuses it. */
static sqlite3_stmt *single(struct gw_store_trace *st, int id) {
  if (!st->stmt[id] &&
      sqlite3_prepare_v3(st->db, st->insert_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL) != SQLITE_OK)
    gw_err_set(&st->last_err, "cannot prepare \"%s\": %s", st->insert_sql[id], sqlite3_errmsg(st->db));
  return st->stmt[id];
}

/* The BATCH_ROWS-row statement of batch b, prepared at its first use. */
static sqlite3_stmt *batch(struct gw_store_trace *st, enum batch_id b) {
  if (!st->multi[b]) {
    char *sql = sql_insert(&TABLES[BATCH_TYPE[b]], BATCH_ROWS);
    if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->multi[b], NULL) != SQLITE_OK)
      gw_err_set(&st->last_err, "cannot prepare the batched \"%s\": %s", st->insert_sql[BATCH_TYPE[b]],
                 sqlite3_errmsg(st->db));
    free(sql);
  }
  return st->multi[b];
}

void gw_store_trace_close(struct gw_store_trace *st) {
  if (!st)
    return;
  for (int i = 0; i < ST_COUNT; i++) {
    sqlite3_finalize(st->stmt[i]);
    free(st->insert_sql[i]);
  }
  for (int b = 0; b < B_COUNT; b++)
    sqlite3_finalize(st->multi[b]);
  free(st);
}

const char *gw_store_trace_errmsg(const struct gw_store_trace *st) {
  return st->last_err.msg;
}

/* Binding helpers. Unsigned 64-bit values above INT64_MAX (none expected:
 * timestamps are checked by the reader, addresses are user-space) keep their
 * bit pattern. */
static void bind_u64(sqlite3_stmt *s, int col, uint64_t v) {
  sqlite3_bind_int64(s, col, (sqlite3_int64)v);
}
static void bind_text(sqlite3_stmt *s, int col, const char *text, uint32_t len) {
  sqlite3_bind_text(s, col, text, (int)len, SQLITE_TRANSIENT);
}
static void bind_str(sqlite3_stmt *s, int col, const char *text) {
  sqlite3_bind_text(s, col, text, -1, SQLITE_STATIC);
}
/* A 0 that means "no name" or "CUPTI did not say" is stored as NULL. */
static void bind_nonzero(sqlite3_stmt *s, int col, uint64_t v) {
  if (v)
    bind_u64(s, col, v);
}
/* A kernel CUPTI could not time has NULL start and end, never 0. */
static void bind_stamp(sqlite3_stmt *s, int col, uint16_t flags, uint64_t v) {
  if (!(flags & GW_WIRE_KERNEL_NO_TIMESTAMP))
    bind_u64(s, col, v);
}

/* bind_<kind>(s, c, pid, r, text): the kind's columns from column c on, as
 * GW_WIRE_COLUMNS_<KIND> says; text is what follows a TEXT-shaped record. */
#define BIND_INT(col, v) bind_u64(s, col, v)
#define BIND_NONZERO(col, v) bind_nonzero(s, col, v)
#define BIND_STAMP(col, v) bind_stamp(s, col, r->h.flags, v)
#define BIND_REAL(col, v) sqlite3_bind_double(s, col, v)
#define BIND_STR(col, v) bind_str(s, col, v)
#define BIND_TEXT(col, len) bind_text(s, col, text, len)
#define COLUMN_BIND_(column, type, bind, value) BIND_##bind(c++, value);
#define BIND_FN_(KIND, id, kind, bytes, table, key, check)                                                             \
  static void bind_##kind(sqlite3_stmt *s, int c, uint32_t pid, const struct gw_wire_##kind *r, const char *text) {    \
    (void)text;                                                                                                        \
    GW_WIRE_COLUMNS_##KIND(COLUMN_BIND_)                                                                               \
  }
GW_WIRE_KINDS(BIND_FN_, BIND_FN_)
#undef BIND_FN_
#undef COLUMN_BIND_

static gw_status step(struct gw_store_trace *st, int id) {
  sqlite3_stmt *s = st->stmt[id];
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    gw_err_set(&st->last_err, "tracer insert \"%s\" failed: %s", st->insert_sql[id], sqlite3_errmsg(st->db));
    return GW_EIO;
  }
  return GW_OK;
}

static gw_status put_header(void *ctx, const struct gw_wire_file_header *h) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = single(st, ST_PROCESS);
  if (!s)
    return GW_EIO;
  char version[32];
  snprintf(version, sizeof version, "%u.%u", h->version_major, h->version_minor);
  bind_u64(s, 1, h->pid);
  bind_u64(s, 2, h->start_ns);
  bind_nonzero(s, 3, h->cupti_version);
  bind_str(s, 4, gw_wire_mode_name(h->mode));
  if (h->mode == GW_WIRE_MODE_SAMPLED) {
    bind_u64(s, 5, h->window_ms);
    bind_u64(s, 6, h->period_ms);
  }
  sqlite3_bind_text(s, 7, version, -1, SQLITE_TRANSIENT);
  return step(st, ST_PROCESS);
}

static gw_status put_name(void *ctx, uint32_t pid, uint32_t name_id, const char *name, uint32_t len_bytes) {
  struct gw_store_trace *st = ctx;
  const struct gw_wire_name r = {.name_id = name_id, .len_bytes = len_bytes};
  sqlite3_stmt *s = single(st, GW_WIRE_NAME);
  if (!s)
    return GW_EIO;
  bind_name(s, 1, pid, &r, name);
  return step(st, GW_WIRE_NAME);
}

static gw_status put_note(void *ctx, uint32_t pid, const struct gw_wire_note *n, const char *text, uint32_t len) {
  struct gw_store_trace *st = ctx;
  struct gw_wire_note r = *n;
  r.len_bytes = len;
  sqlite3_stmt *s = single(st, GW_WIRE_NOTE);
  if (!s)
    return GW_EIO;
  bind_note(s, 1, pid, &r, text);
  return step(st, GW_WIRE_NOTE);
}

/* put_<kind> for every FIXED kind: one row. */
#define PUT_(KIND, id, kind, bytes, table, key, check)                                                                 \
  static gw_status put_##kind(void *ctx, uint32_t pid, const struct gw_wire_##kind *r) {                               \
    struct gw_store_trace *st = ctx;                                                                                   \
    sqlite3_stmt *s = single(st, GW_WIRE_##KIND);                                                                      \
    if (!s)                                                                                                            \
      return GW_EIO;                                                                                                   \
    bind_##kind(s, 1, pid, r, NULL);                                                                                   \
    return step(st, GW_WIRE_##KIND);                                                                                   \
  }
GW_WIRE_KINDS(PUT_, GW_WIRE_NONE)
#undef PUT_

struct gw_trace_callbacks gw_store_trace_callbacks(struct gw_store_trace *st) {
  struct gw_trace_callbacks cb = {.ctx = st, .on_header = put_header, .on_name = put_name, .on_note = put_note};
#define CALLBACK_(KIND, id, kind, bytes, table, key, check) cb.on_##kind = put_##kind;
  GW_WIRE_KINDS(CALLBACK_, GW_WIRE_NONE)
#undef CALLBACK_
  return cb;
}

/* ---- batched inserts ---- */

static gw_status step_multi(struct gw_store_trace *st, enum batch_id b) {
  sqlite3_stmt *s = st->multi[b];
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    gw_err_set(&st->last_err, "tracer insert \"%s\" (%d rows) failed: %s", st->insert_sql[BATCH_TYPE[b]], BATCH_ROWS,
               sqlite3_errmsg(st->db));
    return GW_EIO;
  }
  return GW_OK;
}

/* put_<kind>_batched: gathers rows, inserts BATCH_ROWS at a time. */
#define PUT_BATCHED_(KIND, kind)                                                                                       \
  static gw_status put_##kind##_batched(void *ctx, uint32_t pid, const struct gw_wire_##kind *r) {                     \
    struct gw_store_trace *st = ctx;                                                                                   \
    st->kind##_rows[st->pending[B_##KIND]].pid = pid;                                                                  \
    st->kind##_rows[st->pending[B_##KIND]].r = *r;                                                                     \
    if (++st->pending[B_##KIND] < BATCH_ROWS)                                                                          \
      return GW_OK;                                                                                                    \
    st->pending[B_##KIND] = 0;                                                                                         \
    sqlite3_stmt *s = batch(st, B_##KIND);                                                                             \
    if (!s)                                                                                                            \
      return GW_EIO;                                                                                                   \
    for (int i = 0; i < BATCH_ROWS; i++)                                                                               \
      bind_##kind(s, 1 + i * NCOLUMNS(kind), st->kind##_rows[i].pid, &st->kind##_rows[i].r, NULL);                     \
    return step_multi(st, B_##KIND);                                                                                   \
  }
BATCHED_KINDS(PUT_BATCHED_)
#undef PUT_BATCHED_

struct gw_trace_callbacks gw_store_trace_batch_callbacks(struct gw_store_trace *st) {
  struct gw_trace_callbacks cb = gw_store_trace_callbacks(st);
#define BATCH_CALLBACK_(KIND, kind) cb.on_##kind = put_##kind##_batched;
  BATCHED_KINDS(BATCH_CALLBACK_)
#undef BATCH_CALLBACK_
  return cb;
}

gw_status gw_store_trace_flush(struct gw_store_trace *st) {
  gw_status rc = GW_OK;
  /* the rows of an unfilled batch one at a time, in order */
#define FLUSH_(KIND, kind)                                                                                             \
  for (int i = 0; i < st->pending[B_##KIND] && !rc; i++)                                                               \
    rc = put_##kind(st, st->kind##_rows[i].pid, &st->kind##_rows[i].r);
  BATCHED_KINDS(FLUSH_)
#undef FLUSH_
  for (int b = 0; b < B_COUNT; b++)
    st->pending[b] = 0;
  return rc;
}
