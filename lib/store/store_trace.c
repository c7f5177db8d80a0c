#include "store_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One table per record type. Timestamps are CLOCK_REALTIME ns (CUPTI's base
 * on Linux); ids and enumerations keep CUPTI's numbers (see tracer/wire.h). */
static const char TRACE_SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS trace_process (pid INTEGER NOT NULL, start_ns INTEGER, cupti_version INTEGER,"
    " mode TEXT, window_ms INTEGER, period_ms INTEGER, wire_version TEXT);"
    "CREATE TABLE IF NOT EXISTS trace_name (id INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT,"
    " PRIMARY KEY (pid, id));"
    "CREATE TABLE IF NOT EXISTS kernel (pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, name_id INTEGER, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,"
    " block_x INTEGER, block_y INTEGER, block_z INTEGER, regs INTEGER, shmem_bytes INTEGER,"
    " static_shmem_bytes INTEGER, dynamic_shmem_bytes INTEGER, graph_id INTEGER, graph_node_id INTEGER,"
    " correlation INTEGER, nccl INTEGER);"
    "CREATE TABLE IF NOT EXISTS memcpy (pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, bytes INTEGER, copy_kind INTEGER, src_kind INTEGER, dst_kind INTEGER,"
    " async INTEGER, graph_id INTEGER, correlation INTEGER);"
    "CREATE TABLE IF NOT EXISTS memset (pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, bytes INTEGER, value INTEGER, mem_kind INTEGER, correlation INTEGER);"
    "CREATE TABLE IF NOT EXISTS sync (pid INTEGER NOT NULL, context INTEGER, stream INTEGER, start_ns INTEGER,"
    " end_ns INTEGER, sync_type INTEGER, correlation INTEGER, cuda_event_id INTEGER);"
    "CREATE TABLE IF NOT EXISTS api (pid INTEGER NOT NULL, tid INTEGER, start_ns INTEGER, end_ns INTEGER,"
    " domain TEXT, cbid INTEGER, correlation INTEGER, return_value INTEGER);"
    "CREATE TABLE IF NOT EXISTS marker (pid INTEGER NOT NULL, tid INTEGER, start_ns INTEGER, end_ns INTEGER,"
    " name_id INTEGER, domain_name_id INTEGER, instant INTEGER);"
    "CREATE TABLE IF NOT EXISTS memory (pid INTEGER NOT NULL, device INTEGER, t_ns INTEGER, op TEXT, bytes INTEGER,"
    " address INTEGER, mem_kind INTEGER, stream INTEGER, correlation INTEGER, async INTEGER);"
    "CREATE TABLE IF NOT EXISTS trace_window (pid INTEGER NOT NULL, start_ns INTEGER, end_ns INTEGER, mode TEXT,"
    " kinds INTEGER);"
    "CREATE TABLE IF NOT EXISTS launch_count (pid INTEGER NOT NULL, start_ns INTEGER, end_ns INTEGER,"
    " runtime_launches INTEGER, driver_launches INTEGER);"
    "CREATE TABLE IF NOT EXISTS trace_dropped (pid INTEGER NOT NULL, t_ns INTEGER, cupti_dropped_records INTEGER,"
    " buffers_refused INTEGER);"
    "CREATE TABLE IF NOT EXISTS trace_note (t_ns INTEGER, pid INTEGER NOT NULL, level TEXT, text TEXT);"
    "CREATE TABLE IF NOT EXISTS trace_overhead (pid INTEGER NOT NULL, start_ns INTEGER, end_ns INTEGER,"
    " overhead_kind INTEGER, object_kind INTEGER, object_id INTEGER);"
    "CREATE TABLE IF NOT EXISTS graph_launch (pid INTEGER NOT NULL, device INTEGER, context INTEGER, stream INTEGER,"
    " start_ns INTEGER, end_ns INTEGER, graph_id INTEGER, correlation INTEGER);"
    "CREATE TABLE IF NOT EXISTS trace_device (pid INTEGER NOT NULL, device INTEGER, sm_count INTEGER,"
    " max_warps_per_sm INTEGER, max_blocks_per_sm INTEGER, max_regs_per_sm INTEGER, max_regs_per_block INTEGER,"
    " max_shmem_per_sm_bytes INTEGER, max_shmem_per_block_bytes INTEGER, max_threads_per_block INTEGER,"
    " threads_per_warp INTEGER, cc_major INTEGER, cc_minor INTEGER, core_clock_khz INTEGER);"
    "CREATE TABLE IF NOT EXISTS pm_sample (pid INTEGER NOT NULL, device INTEGER, start_ns INTEGER, end_ns INTEGER,"
    " sm_cycles_active_avg REAL, sm_cycles_elapsed_avg REAL);";

enum stmt_id {
  ST_PROCESS,
  ST_NAME,
  ST_KERNEL,
  ST_MEMCPY,
  ST_MEMSET,
  ST_SYNC,
  ST_API,
  ST_MARKER,
  ST_MEMORY,
  ST_WINDOW,
  ST_LAUNCH_COUNT,
  ST_DROPPED,
  ST_NOTE,
  ST_OVERHEAD,
  ST_GRAPH,
  ST_DEVICE,
  ST_PM_SAMPLE,
  ST_COUNT
};

static const char *const INSERT_SQL[ST_COUNT] = {
    [ST_PROCESS] = "INSERT INTO trace_process VALUES (?,?,?,?,?,?,?)",
    [ST_NAME] = "INSERT OR IGNORE INTO trace_name VALUES (?,?,?)",
    [ST_KERNEL] = "INSERT INTO kernel VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_MEMCPY] = "INSERT INTO memcpy VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_MEMSET] = "INSERT INTO memset VALUES (?,?,?,?,?,?,?,?,?,?)",
    [ST_SYNC] = "INSERT INTO sync VALUES (?,?,?,?,?,?,?,?)",
    [ST_API] = "INSERT INTO api VALUES (?,?,?,?,?,?,?,?)",
    [ST_MARKER] = "INSERT INTO marker VALUES (?,?,?,?,?,?,?)",
    [ST_MEMORY] = "INSERT INTO memory VALUES (?,?,?,?,?,?,?,?,?,?)",
    [ST_WINDOW] = "INSERT INTO trace_window VALUES (?,?,?,?,?)",
    [ST_LAUNCH_COUNT] = "INSERT INTO launch_count VALUES (?,?,?,?,?)",
    [ST_DROPPED] = "INSERT INTO trace_dropped VALUES (?,?,?,?)",
    [ST_NOTE] = "INSERT INTO trace_note VALUES (?,?,?,?)",
    [ST_OVERHEAD] = "INSERT INTO trace_overhead VALUES (?,?,?,?,?,?)",
    [ST_GRAPH] = "INSERT INTO graph_launch VALUES (?,?,?,?,?,?,?,?)",
    [ST_DEVICE] = "INSERT INTO trace_device VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_PM_SAMPLE] = "INSERT INTO pm_sample VALUES (?,?,?,?,?,?)",
};

/* Batched inserts (gw_store_trace_batch_callbacks): the three tables that
 * take most rows get one multi-row INSERT per BATCH_ROWS rows, which costs
 * SQLite about 40% less per row than a statement per row. */
#define BATCH_ROWS 32
enum batch_id { B_KERNEL, B_API, B_MARKER, B_COUNT };
static const enum stmt_id BATCH_STMT[B_COUNT] = {ST_KERNEL, ST_API, ST_MARKER};
static const int BATCH_COLS[B_COUNT] = {21, 8, 7};

struct gw_store_trace {
  sqlite3 *db;
  sqlite3_stmt *stmt[ST_COUNT];
  sqlite3_stmt *multi[B_COUNT];
  int pending[B_COUNT]; /* rows waiting for their batch */
  struct {
    uint32_t pid;
    struct gw_wire_kernel r;
  } kernels[BATCH_ROWS];
  struct {
    uint32_t pid;
    struct gw_wire_api r;
  } apis[BATCH_ROWS];
  struct {
    uint32_t pid;
    struct gw_wire_marker r;
  } markers[BATCH_ROWS];
  struct gw_err last_err;
};

gw_status gw_store_trace_create_tables(sqlite3 *db, struct gw_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(db, TRACE_SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
    gw_err_set(err, "cannot create the tracer tables: %s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return GW_EIO;
  }
  return GW_OK;
}

/* The table an insert writes: the word after "INTO ". */
static void insert_table(const char *sql, char *out, size_t cap) {
  const char *t = strstr(sql, "INTO ");
  size_t n = t ? strcspn(t + 5, " (") : 0;
  snprintf(out, cap, "%.*s", (int)n, t ? t + 5 : "");
}

gw_status gw_store_trace_open(struct gw_store_trace **out, sqlite3 *db, struct gw_err *err) {
  *out = NULL;
  /* The statements are prepared at their first row (stmt_of): an import
   * or a short trace uses a few of the 20, and preparing the rest (the
   * batched ones are long) took most of a small import's time. Missing
   * tables are still refused here, as preparing them all did. */
  for (int i = 0; i < ST_COUNT; i++) {
    char table[64];
    insert_table(INSERT_SQL[i], table, sizeof table);
    /* SQLite's parsed schema, as gw_store_table_exists reads it (store.h includes this file) */
    if (sqlite3_table_column_metadata(db, "main", table, NULL, NULL, NULL, NULL, NULL, NULL) != SQLITE_OK) {
      gw_err_set(err, "cannot write tracer rows: the recording has no table %s", table);
      return GW_EIO;
    }
  }
  struct gw_store_trace *st = gw_xcalloc(1, sizeof *st);
  st->db = db;
  *out = st;
  return GW_OK;
}

void gw_store_trace_close(struct gw_store_trace *st) {
  if (!st)
    return;
  for (int i = 0; i < ST_COUNT; i++)
    sqlite3_finalize(st->stmt[i]);
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

/* The insert statement of id, prepared at its first use; NULL (with the
 * reason in last_err) when SQLite refuses it. */
static sqlite3_stmt *stmt_of(struct gw_store_trace *st, enum stmt_id id) {
  if (!st->stmt[id] &&
      sqlite3_prepare_v3(st->db, INSERT_SQL[id], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL) != SQLITE_OK) {
    gw_err_set(&st->last_err, "cannot prepare \"%s\": %s", INSERT_SQL[id], sqlite3_errmsg(st->db));
    sqlite3_finalize(st->stmt[id]);
    st->stmt[id] = NULL;
  }
  return st->stmt[id];
}

static gw_status step(struct gw_store_trace *st, enum stmt_id id) {
  sqlite3_stmt *s = st->stmt[id]; /* prepared by the stmt_of before the binds */
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    gw_err_set(&st->last_err, "tracer insert \"%s\" failed: %s", INSERT_SQL[id], sqlite3_errmsg(st->db));
    return GW_EIO;
  }
  return GW_OK;
}

static const char *mode_text(uint32_t mode) {
  return mode == GW_WIRE_MODE_FULL ? "full" : mode == GW_WIRE_MODE_NVTX ? "nvtx" : "sampled";
}

static gw_status put_header(void *ctx, const struct gw_wire_file_header *h) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_PROCESS);
  if (!s)
    return GW_EIO;
  char version[32];
  snprintf(version, sizeof version, "%u.%u", h->version_major, h->version_minor);
  bind_u64(s, 1, h->pid);
  bind_u64(s, 2, h->start_ns);
  if (h->cupti_version)
    bind_u64(s, 3, h->cupti_version);
  bind_str(s, 4, mode_text(h->mode));
  if (h->mode == GW_WIRE_MODE_SAMPLED) {
    bind_u64(s, 5, h->window_ms);
    bind_u64(s, 6, h->period_ms);
  }
  sqlite3_bind_text(s, 7, version, -1, SQLITE_TRANSIENT);
  return step(st, ST_PROCESS);
}

static gw_status put_name(void *ctx, uint32_t pid, uint32_t name_id, const char *name, uint32_t len_bytes) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_NAME);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, name_id);
  bind_u64(s, 2, pid);
  bind_text(s, 3, name, len_bytes);
  return step(st, ST_NAME);
}

/* Name ids of 0 mean "no name": stored as NULL. */
static void bind_name_id(sqlite3_stmt *s, int col, uint32_t id) {
  if (id)
    bind_u64(s, col, id);
}

static void bind_kernel(sqlite3_stmt *s, int c, uint32_t pid, const struct gw_wire_kernel *k) {
  bind_u64(s, c++, pid);
  bind_u64(s, c++, k->device);
  bind_u64(s, c++, k->context);
  bind_u64(s, c++, k->stream);
  if (!(k->h.flags & GW_WIRE_KERNEL_NO_TIMESTAMP)) {
    bind_u64(s, c, k->start_ns);
    bind_u64(s, c + 1, k->end_ns);
  }
  c += 2;
  bind_name_id(s, c++, k->name_id);
  bind_u64(s, c++, k->grid_x);
  bind_u64(s, c++, k->grid_y);
  bind_u64(s, c++, k->grid_z);
  bind_u64(s, c++, k->block_x);
  bind_u64(s, c++, k->block_y);
  bind_u64(s, c++, k->block_z);
  bind_u64(s, c++, k->regs_per_thread);
  bind_u64(s, c++, (uint64_t)k->static_shmem_bytes + k->dynamic_shmem_bytes);
  bind_u64(s, c++, k->static_shmem_bytes);
  bind_u64(s, c++, k->dynamic_shmem_bytes);
  bind_u64(s, c++, k->graph_id);
  bind_u64(s, c++, k->graph_node_id);
  bind_u64(s, c++, k->correlation);
  bind_u64(s, c++, (k->h.flags & GW_WIRE_KERNEL_NCCL) ? 1 : 0);
}

static gw_status put_kernel(void *ctx, uint32_t pid, const struct gw_wire_kernel *k) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_KERNEL);
  if (!s)
    return GW_EIO;
  bind_kernel(s, 1, pid, k);
  return step(st, ST_KERNEL);
}

static gw_status put_memcpy(void *ctx, uint32_t pid, const struct gw_wire_memcpy *m) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_MEMCPY);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, m->device);
  bind_u64(s, c++, m->context);
  bind_u64(s, c++, m->stream);
  bind_u64(s, c++, m->start_ns);
  bind_u64(s, c++, m->end_ns);
  bind_u64(s, c++, m->bytes);
  bind_u64(s, c++, m->copy_kind);
  bind_u64(s, c++, m->src_kind);
  bind_u64(s, c++, m->dst_kind);
  bind_u64(s, c++, (m->h.flags & GW_WIRE_MEMCPY_ASYNC) ? 1 : 0);
  bind_u64(s, c++, m->graph_id);
  bind_u64(s, c++, m->correlation);
  return step(st, ST_MEMCPY);
}

static gw_status put_memset(void *ctx, uint32_t pid, const struct gw_wire_memset *m) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_MEMSET);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, m->device);
  bind_u64(s, c++, m->context);
  bind_u64(s, c++, m->stream);
  bind_u64(s, c++, m->start_ns);
  bind_u64(s, c++, m->end_ns);
  bind_u64(s, c++, m->bytes);
  bind_u64(s, c++, m->value);
  bind_u64(s, c++, m->mem_kind);
  bind_u64(s, c++, m->correlation);
  return step(st, ST_MEMSET);
}

static gw_status put_sync(void *ctx, uint32_t pid, const struct gw_wire_sync *y) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_SYNC);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, y->context);
  bind_u64(s, c++, y->stream);
  bind_u64(s, c++, y->start_ns);
  bind_u64(s, c++, y->end_ns);
  bind_u64(s, c++, y->sync_type);
  bind_u64(s, c++, y->correlation);
  bind_u64(s, c++, y->cuda_event_id);
  return step(st, ST_SYNC);
}

static void bind_api(sqlite3_stmt *s, int c, uint32_t pid, const struct gw_wire_api *a) {
  bind_u64(s, c++, pid);
  bind_u64(s, c++, a->tid);
  bind_u64(s, c++, a->start_ns);
  bind_u64(s, c++, a->end_ns);
  bind_str(s, c++, a->domain == GW_WIRE_API_RUNTIME ? "runtime" : "driver");
  bind_u64(s, c++, a->cbid);
  bind_u64(s, c++, a->correlation);
  bind_u64(s, c++, a->return_value);
}

static gw_status put_api(void *ctx, uint32_t pid, const struct gw_wire_api *a) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_API);
  if (!s)
    return GW_EIO;
  bind_api(s, 1, pid, a);
  return step(st, ST_API);
}

static void bind_marker(sqlite3_stmt *s, int c, uint32_t pid, const struct gw_wire_marker *m) {
  bind_u64(s, c++, pid);
  bind_u64(s, c++, m->tid);
  bind_u64(s, c++, m->start_ns);
  bind_u64(s, c++, m->end_ns);
  bind_name_id(s, c++, m->name_id);
  bind_name_id(s, c++, m->domain_name_id);
  bind_u64(s, c++, (m->h.flags & GW_WIRE_MARKER_INSTANT) ? 1 : 0);
}

static gw_status put_marker(void *ctx, uint32_t pid, const struct gw_wire_marker *m) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_MARKER);
  if (!s)
    return GW_EIO;
  bind_marker(s, 1, pid, m);
  return step(st, ST_MARKER);
}

static gw_status put_memory(void *ctx, uint32_t pid, const struct gw_wire_memory *m) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_MEMORY);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, m->device);
  bind_u64(s, c++, m->t_ns);
  bind_str(s, c++, m->op == GW_WIRE_MEMORY_ALLOC ? "alloc" : "free");
  bind_u64(s, c++, m->bytes);
  bind_u64(s, c++, m->address);
  bind_u64(s, c++, m->mem_kind);
  bind_u64(s, c++, m->stream);
  bind_u64(s, c++, m->correlation);
  bind_u64(s, c++, (m->h.flags & GW_WIRE_MEMORY_ASYNC) ? 1 : 0);
  return step(st, ST_MEMORY);
}

static gw_status put_window(void *ctx, uint32_t pid, const struct gw_wire_window *w) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_WINDOW);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, pid);
  bind_u64(s, 2, w->start_ns);
  bind_u64(s, 3, w->end_ns);
  bind_str(s, 4, mode_text(w->mode));
  bind_u64(s, 5, w->kinds);
  return step(st, ST_WINDOW);
}

static gw_status put_launch_count(void *ctx, uint32_t pid, const struct gw_wire_launch_count *l) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_LAUNCH_COUNT);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, pid);
  bind_u64(s, 2, l->start_ns);
  bind_u64(s, 3, l->end_ns);
  bind_u64(s, 4, l->runtime_launches);
  bind_u64(s, 5, l->driver_launches);
  return step(st, ST_LAUNCH_COUNT);
}

static gw_status put_dropped(void *ctx, uint32_t pid, const struct gw_wire_dropped *d) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_DROPPED);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, pid);
  bind_u64(s, 2, d->t_ns);
  bind_u64(s, 3, d->cupti_dropped_records);
  bind_u64(s, 4, d->buffers_refused);
  return step(st, ST_DROPPED);
}

static gw_status put_note(void *ctx, uint32_t pid, const struct gw_wire_note *n, const char *text, uint32_t len) {
  static const char *const levels[] = {"info", "warn", "error"};
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_NOTE);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, n->t_ns);
  bind_u64(s, 2, pid);
  bind_str(s, 3, levels[n->level <= GW_WIRE_NOTE_ERROR ? n->level : GW_WIRE_NOTE_ERROR]);
  bind_text(s, 4, text, len);
  return step(st, ST_NOTE);
}

static gw_status put_overhead(void *ctx, uint32_t pid, const struct gw_wire_overhead *o) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_OVERHEAD);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, pid);
  bind_u64(s, 2, o->start_ns);
  bind_u64(s, 3, o->end_ns);
  bind_u64(s, 4, o->overhead_kind);
  bind_u64(s, 5, o->object_kind);
  bind_u64(s, 6, o->object_id);
  return step(st, ST_OVERHEAD);
}

static gw_status put_graph(void *ctx, uint32_t pid, const struct gw_wire_graph *g) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_GRAPH);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, g->device);
  bind_u64(s, c++, g->context);
  bind_u64(s, c++, g->stream);
  bind_u64(s, c++, g->start_ns);
  bind_u64(s, c++, g->end_ns);
  bind_u64(s, c++, g->graph_id);
  bind_u64(s, c++, g->correlation);
  return step(st, ST_GRAPH);
}

/* A 0 from CUPTI (not said) is stored as NULL. */
static void bind_known(sqlite3_stmt *s, int col, uint64_t v) {
  if (v)
    bind_u64(s, col, v);
}

static gw_status put_device(void *ctx, uint32_t pid, const struct gw_wire_device *d) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_DEVICE);
  if (!s)
    return GW_EIO;
  int c = 1;
  bind_u64(s, c++, pid);
  bind_u64(s, c++, d->device);
  bind_known(s, c++, d->sm_count);
  bind_known(s, c++, d->max_warps_per_sm);
  bind_known(s, c++, d->max_blocks_per_sm);
  bind_known(s, c++, d->max_regs_per_sm);
  bind_known(s, c++, d->max_regs_per_block);
  bind_known(s, c++, d->max_shmem_per_sm_bytes);
  bind_known(s, c++, d->max_shmem_per_block_bytes);
  bind_known(s, c++, d->max_threads_per_block);
  bind_known(s, c++, d->threads_per_warp);
  bind_known(s, c++, d->cc_major);
  bind_u64(s, c++, d->cc_minor);
  bind_known(s, c++, d->core_clock_khz);
  return step(st, ST_DEVICE);
}

static gw_status put_pm_sample(void *ctx, uint32_t pid, const struct gw_wire_pm_sample *m) {
  struct gw_store_trace *st = ctx;
  sqlite3_stmt *s = stmt_of(st, ST_PM_SAMPLE);
  if (!s)
    return GW_EIO;
  bind_u64(s, 1, pid);
  bind_u64(s, 2, m->device);
  bind_u64(s, 3, m->start_ns);
  bind_u64(s, 4, m->end_ns);
  sqlite3_bind_double(s, 5, m->sm_cycles_active_avg);
  sqlite3_bind_double(s, 6, m->sm_cycles_elapsed_avg);
  return step(st, ST_PM_SAMPLE);
}

struct gw_trace_callbacks gw_store_trace_callbacks(struct gw_store_trace *st) {
  struct gw_trace_callbacks cb = {
      .ctx = st,
      .on_header = put_header,
      .on_name = put_name,
      .on_kernel = put_kernel,
      .on_memcpy = put_memcpy,
      .on_memset = put_memset,
      .on_sync = put_sync,
      .on_api = put_api,
      .on_marker = put_marker,
      .on_memory = put_memory,
      .on_window = put_window,
      .on_launch_count = put_launch_count,
      .on_dropped = put_dropped,
      .on_note = put_note,
      .on_overhead = put_overhead,
      .on_graph = put_graph,
      .on_device = put_device,
      .on_pm_sample = put_pm_sample,
  };
  return cb;
}

/* ---- batched inserts ---- */

/* The batched insert of b, prepared at its first full batch: the
 * single-row text with its "(?,...)" repeated BATCH_ROWS times. */
static sqlite3_stmt *multi_of(struct gw_store_trace *st, enum batch_id b) {
  if (st->multi[b])
    return st->multi[b];
  const char *one = INSERT_SQL[BATCH_STMT[b]], *group = strchr(one, '(');
  size_t group_len = strlen(group), cap = strlen(one) + (size_t)BATCH_ROWS * (group_len + 1) + 1;
  char *sql = gw_xcalloc(1, cap);
  size_t len = strlen(one);
  memcpy(sql, one, len);
  for (int i = 1; i < BATCH_ROWS; i++) {
    sql[len++] = ',';
    memcpy(sql + len, group, group_len);
    len += group_len;
  }
  if (sqlite3_prepare_v3(st->db, sql, (int)len, SQLITE_PREPARE_PERSISTENT, &st->multi[b], NULL) != SQLITE_OK) {
    gw_err_set(&st->last_err, "cannot prepare the batched \"%s\": %s", one, sqlite3_errmsg(st->db));
    sqlite3_finalize(st->multi[b]);
    st->multi[b] = NULL;
  }
  free(sql);
  return st->multi[b];
}

static gw_status step_multi(struct gw_store_trace *st, enum batch_id b) {
  sqlite3_stmt *s = st->multi[b]; /* prepared by the multi_of before the binds */
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc != SQLITE_DONE) {
    gw_err_set(&st->last_err, "tracer insert \"%s\" (%d rows) failed: %s", INSERT_SQL[BATCH_STMT[b]], BATCH_ROWS,
               sqlite3_errmsg(st->db));
    return GW_EIO;
  }
  return GW_OK;
}

static gw_status put_kernel_batched(void *ctx, uint32_t pid, const struct gw_wire_kernel *k) {
  struct gw_store_trace *st = ctx;
  st->kernels[st->pending[B_KERNEL]].pid = pid;
  st->kernels[st->pending[B_KERNEL]].r = *k;
  if (++st->pending[B_KERNEL] < BATCH_ROWS)
    return GW_OK;
  st->pending[B_KERNEL] = 0;
  sqlite3_stmt *s = multi_of(st, B_KERNEL);
  if (!s)
    return GW_EIO;
  for (int i = 0; i < BATCH_ROWS; i++)
    bind_kernel(s, 1 + i * BATCH_COLS[B_KERNEL], st->kernels[i].pid, &st->kernels[i].r);
  return step_multi(st, B_KERNEL);
}

static gw_status put_api_batched(void *ctx, uint32_t pid, const struct gw_wire_api *a) {
  struct gw_store_trace *st = ctx;
  st->apis[st->pending[B_API]].pid = pid;
  st->apis[st->pending[B_API]].r = *a;
  if (++st->pending[B_API] < BATCH_ROWS)
    return GW_OK;
  st->pending[B_API] = 0;
  sqlite3_stmt *s = multi_of(st, B_API);
  if (!s)
    return GW_EIO;
  for (int i = 0; i < BATCH_ROWS; i++)
    bind_api(s, 1 + i * BATCH_COLS[B_API], st->apis[i].pid, &st->apis[i].r);
  return step_multi(st, B_API);
}

static gw_status put_marker_batched(void *ctx, uint32_t pid, const struct gw_wire_marker *m) {
  struct gw_store_trace *st = ctx;
  st->markers[st->pending[B_MARKER]].pid = pid;
  st->markers[st->pending[B_MARKER]].r = *m;
  if (++st->pending[B_MARKER] < BATCH_ROWS)
    return GW_OK;
  st->pending[B_MARKER] = 0;
  sqlite3_stmt *s = multi_of(st, B_MARKER);
  if (!s)
    return GW_EIO;
  for (int i = 0; i < BATCH_ROWS; i++)
    bind_marker(s, 1 + i * BATCH_COLS[B_MARKER], st->markers[i].pid, &st->markers[i].r);
  return step_multi(st, B_MARKER);
}

struct gw_trace_callbacks gw_store_trace_batch_callbacks(struct gw_store_trace *st) {
  struct gw_trace_callbacks cb = gw_store_trace_callbacks(st);
  cb.on_kernel = put_kernel_batched;
  cb.on_api = put_api_batched;
  cb.on_marker = put_marker_batched;
  return cb;
}

gw_status gw_store_trace_flush(struct gw_store_trace *st) {
  gw_status rc = GW_OK;
  /* the rows of an unfilled batch one at a time, in order */
  for (int i = 0; i < st->pending[B_KERNEL] && !rc; i++)
    rc = put_kernel(st, st->kernels[i].pid, &st->kernels[i].r);
  for (int i = 0; i < st->pending[B_API] && !rc; i++)
    rc = put_api(st, st->apis[i].pid, &st->apis[i].r);
  for (int i = 0; i < st->pending[B_MARKER] && !rc; i++)
    rc = put_marker(st, st->markers[i].pid, &st->markers[i].r);
  for (int b = 0; b < B_COUNT; b++)
    st->pending[b] = 0;
  return rc;
}
