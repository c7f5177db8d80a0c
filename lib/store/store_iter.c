#include "store/store_iter.h"
#include "store_sql.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

struct gw_store_iter {
  sqlite3_stmt *s;
  struct gw_store *st; /* where damage met by a step or a column is noted */
};

#define NO_ARG INT64_MIN

/* A prepared query on one table (checked first unless NULL); NULL when the
 * table is absent or the query cannot be prepared (a damaged or older
 * file). An arg other than NO_ARG binds ?1 (a GPU index, a time). */
static struct gw_store_iter *iter_open(struct gw_store *st, const char *table, const char *sql, int64_t arg) {
  sqlite3 *db = gw_store_db(st);
  sqlite3_stmt *s;
  if ((table && !gw_store_table_exists(db, table)) || sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return NULL;
  if (arg != NO_ARG)
    sqlite3_bind_int64(s, 1, arg);
  struct gw_store_iter *it = gw_xcalloc(1, sizeof *it);
  it->s = s;
  it->st = st;
  return it;
}

/* A row, or 0 at the end or on damage (noted in the store: readers check gw_store_damage). */
static int step(struct gw_store_iter *it) {
  return it && gw_store_step(it->st, it->s);
}

void gw_store_iter_close(struct gw_store_iter *it) {
  if (!it)
    return;
  sqlite3_finalize(it->s);
  free(it);
}

int gw_store_has_table(struct gw_store *st, const char *name) {
  return gw_store_table_exists(gw_store_db(st), name);
}

struct gw_store_iter *gw_store_iter_names(struct gw_store *st) {
  return iter_open(st, "trace_name", "SELECT pid, id, name FROM trace_name ORDER BY name", NO_ARG);
}

int gw_store_next_name(struct gw_store_iter *it, struct gw_store_name_row *row) {
  if (!step(it))
    return 0;
  const unsigned char *name = sqlite3_column_text(it->s, 2);
  row->pid = sqlite3_column_int64(it->s, 0);
  row->id = sqlite3_column_int64(it->s, 1);
  row->text = name ? (const char *)name : "";
  return 1;
}

struct gw_store_iter *gw_store_iter_kernels(struct gw_store *st, int device) {
  return iter_open(st, "kernel",
                   "SELECT pid, start_ns, end_ns, name_id, grid_x, grid_y, grid_z, block_x * block_y * block_z, regs,"
                   " shmem_bytes FROM kernel"
                   " WHERE device = ? AND start_ns IS NOT NULL AND end_ns IS NOT NULL ORDER BY start_ns",
                   device);
}

int gw_store_next_kernel(struct gw_store_iter *it, struct gw_store_kernel_row *row) {
  if (!step(it))
    return 0;
  sqlite3_stmt *s = it->s;
  row->pid = sqlite3_column_int64(s, 0);
  row->start_ns = sqlite3_column_int64(s, 1);
  row->end_ns = sqlite3_column_int64(s, 2);
  row->name_id = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 3);
  for (int d = 0; d < 3; d++)
    row->grid[d] = sqlite3_column_int(s, 4 + d);
  row->threads_per_block = sqlite3_column_int(s, 7);
  row->regs_per_thread = sqlite3_column_int(s, 8);
  row->shmem_bytes = sqlite3_column_int64(s, 9);
  return 1;
}

struct gw_store_iter *gw_store_iter_launches(struct gw_store *st, int device) {
  return iter_open(st, "kernel",
                   "SELECT start_ns, end_ns, grid_x * grid_y * grid_z, block_x * block_y * block_z, regs,"
                   " shmem_bytes FROM kernel WHERE device = ? AND start_ns IS NOT NULL AND end_ns > start_ns"
                   " AND grid_x > 0 AND block_x > 0",
                   device);
}

int gw_store_next_launch(struct gw_store_iter *it, struct gw_store_launch_row *row) {
  if (!step(it))
    return 0;
  sqlite3_stmt *s = it->s;
  row->start_ns = sqlite3_column_int64(s, 0);
  row->end_ns = sqlite3_column_int64(s, 1);
  row->blocks = sqlite3_column_int64(s, 2);
  row->threads_per_block = sqlite3_column_int(s, 3);
  row->regs_per_thread = sqlite3_column_int(s, 4);
  row->shmem_bytes = sqlite3_column_int64(s, 5);
  return 1;
}

int gw_store_trace_device(struct gw_store *st, int device, struct gw_store_device_row *row) {
  memset(row, 0, sizeof *row);
  struct gw_store_iter *it = iter_open(st, "trace_device",
                                       "SELECT sm_count, max_warps_per_sm, max_blocks_per_sm, max_regs_per_sm,"
                                       " max_shmem_per_sm_bytes, threads_per_warp, cc_major, cc_minor FROM trace_device"
                                       " WHERE device = ? AND sm_count IS NOT NULL LIMIT 1",
                                       device);
  int found = step(it);
  if (found) {
    int *cols[] = {&row->sm_count,
                   &row->max_warps_per_sm,
                   &row->max_blocks_per_sm,
                   &row->max_regs_per_sm,
                   &row->max_shmem_per_sm_bytes,
                   &row->threads_per_warp,
                   &row->cc_major,
                   &row->cc_minor};
    for (int c = 0; c < 8; c++)
      *cols[c] = sqlite3_column_int(it->s, c);
  }
  gw_store_iter_close(it);
  return found;
}

struct gw_store_iter *gw_store_iter_trace_windows(struct gw_store *st) {
  return iter_open(st, "trace_window", "SELECT start_ns, end_ns FROM trace_window WHERE end_ns > start_ns", NO_ARG);
}

int gw_store_next_span(struct gw_store_iter *it, struct gw_store_span_row *row) {
  if (!step(it))
    return 0;
  row->start_ns = sqlite3_column_int64(it->s, 0);
  row->end_ns = sqlite3_column_int64(it->s, 1);
  return 1;
}

int64_t gw_store_trace_sampled_period_max_ms(struct gw_store *st) {
  struct gw_store_iter *it =
      iter_open(st, "trace_process", "SELECT max(period_ms) FROM trace_process WHERE mode = 'sampled'", NO_ARG);
  int64_t ms = -1;
  if (step(it) && sqlite3_column_type(it->s, 0) != SQLITE_NULL)
    ms = sqlite3_column_int64(it->s, 0);
  gw_store_iter_close(it);
  return ms;
}

struct gw_store_iter *gw_store_iter_pm_samples(struct gw_store *st, int device) {
  return iter_open(st, "pm_sample",
                   "SELECT start_ns, end_ns, sm_cycles_active_avg / sm_cycles_elapsed_avg FROM pm_sample"
                   " WHERE device = ? AND end_ns > start_ns AND sm_cycles_elapsed_avg > 0",
                   device);
}

int gw_store_next_pm(struct gw_store_iter *it, struct gw_store_pm_row *row) {
  if (!step(it))
    return 0;
  row->start_ns = sqlite3_column_int64(it->s, 0);
  row->end_ns = sqlite3_column_int64(it->s, 1);
  row->sm_active_share = gw_store_col_double(it->st, it->s, 2);
  return 1;
}

struct gw_store_iter *gw_store_iter_nccl_env(struct gw_store *st) {
  return iter_open(st, "env", "SELECT name, value FROM env WHERE name LIKE 'NCCL\\_%' ESCAPE '\\'", NO_ARG);
}

int gw_store_next_env(struct gw_store_iter *it, struct gw_store_env_row *row) {
  if (!step(it))
    return 0;
  row->name = (const char *)sqlite3_column_text(it->s, 0);
  row->value = (const char *)sqlite3_column_text(it->s, 1);
  return 1;
}

struct gw_store_iter *gw_store_iter_nccl_log(struct gw_store *st, struct gw_err *err) {
  if (!gw_store_has_table(st, "nccl_log"))
    return NULL;
  struct gw_store_iter *it = iter_open(st, NULL, "SELECT pid, line FROM nccl_log ORDER BY t_ns, rowid", NO_ARG);
  if (!it)
    gw_err_set(err, "reading nccl_log: %s", sqlite3_errmsg(gw_store_db(st)));
  return it;
}

int gw_store_next_nccl(struct gw_store_iter *it, struct gw_store_nccl_row *row) {
  if (!step(it))
    return 0;
  row->pid = sqlite3_column_type(it->s, 0) == SQLITE_INTEGER ? sqlite3_column_int64(it->s, 0) : -1;
  row->line = (const char *)sqlite3_column_text(it->s, 1);
  return 1;
}

static int has_trace_tables(struct gw_store *st) {
  static const char *const tables[] = {"kernel", "memcpy", "memset", "sync", "marker", "trace_name"};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
    if (!gw_store_has_table(st, tables[i]))
      return 0;
  return 1;
}

/* Column 0 is the kind (enum gw_store_trace_kind); the others line up by
 * what they mean, NULL where a kind has no such column. */
static const char TRACE_SQL[] =
    "SELECT 0, k.pid, k.stream, k.start_ns, k.end_ns, n.name, k.device, k.nccl, k.grid_x, k.grid_y, k.grid_z,"
    " k.block_x, k.block_y, k.block_z, k.regs, k.shmem_bytes, k.correlation"
    " FROM kernel k LEFT JOIN trace_name n ON n.pid = k.pid AND n.id = k.name_id WHERE k.start_ns IS NOT NULL"
    " UNION ALL SELECT 1, pid, stream, start_ns, end_ns, NULL, device, copy_kind, bytes, async, NULL, NULL, NULL, NULL,"
    " NULL, NULL, correlation FROM memcpy WHERE start_ns IS NOT NULL"
    " UNION ALL SELECT 2, pid, stream, start_ns, end_ns, NULL, device, NULL, bytes, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL, correlation FROM memset WHERE start_ns IS NOT NULL"
    " UNION ALL SELECT 3, pid, stream, start_ns, end_ns, NULL, NULL, sync_type, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL,"
    " NULL, correlation FROM sync WHERE start_ns IS NOT NULL"
    " UNION ALL SELECT 4, m.pid, m.tid, m.start_ns, m.end_ns, n.name, NULL, m.instant, NULL, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL FROM marker m LEFT JOIN trace_name n ON n.pid = m.pid AND n.id = m.name_id"
    " WHERE m.start_ns IS NOT NULL"
    " ORDER BY 4";

struct gw_store_iter *gw_store_iter_trace(struct gw_store *st) {
  return has_trace_tables(st) ? iter_open(st, NULL, TRACE_SQL, NO_ARG) : NULL;
}

static int64_t col_or(sqlite3_stmt *s, int i, int64_t unknown) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? unknown : sqlite3_column_int64(s, i);
}

int gw_store_next_trace(struct gw_store_iter *it, struct gw_store_trace_row *row) {
  if (!step(it))
    return 0;
  sqlite3_stmt *s = it->s;
  memset(row, 0, sizeof *row);
  int kind = sqlite3_column_int(s, 0);
  row->kind = kind >= 0 && kind <= GW_STORE_TRACE_MARKER ? (enum gw_store_trace_kind)kind : GW_STORE_TRACE_MARKER;
  row->pid = col_or(s, 1, 0);
  row->lane = col_or(s, 2, 0);
  row->start_ns = sqlite3_column_int64(s, 3);
  row->end_ns = col_or(s, 4, row->start_ns);
  row->name = (const char *)sqlite3_column_text(s, 5);
  row->device = col_or(s, 6, -1);
  row->flag = col_or(s, 7, 0);
  for (int d = 0; d < 3; d++) {
    row->grid[d] = row->kind == GW_STORE_TRACE_KERNEL ? col_or(s, 8 + d, 0) : 0;
    row->block[d] = col_or(s, 11 + d, 0);
  }
  row->regs = col_or(s, 14, 0);
  row->shmem_bytes = col_or(s, 15, 0);
  row->bytes = row->kind == GW_STORE_TRACE_MEMCPY || row->kind == GW_STORE_TRACE_MEMSET ? col_or(s, 8, 0) : 0;
  row->async = row->kind == GW_STORE_TRACE_MEMCPY ? col_or(s, 9, 0) : 0;
  row->correlation = col_or(s, 16, 0);
  return 1;
}

int gw_store_trace_first_start(struct gw_store *st, int64_t *t_ns) {
  struct gw_store_iter *it =
      has_trace_tables(st)
          ? iter_open(st, NULL,
                      "SELECT min(m) FROM (SELECT min(start_ns) AS m FROM kernel UNION ALL SELECT min(start_ns)"
                      " FROM memcpy UNION ALL SELECT min(start_ns) FROM memset UNION ALL SELECT min(start_ns)"
                      " FROM sync UNION ALL SELECT min(start_ns) FROM marker)",
                      NO_ARG)
          : NULL;
  int found = step(it) && sqlite3_column_type(it->s, 0) != SQLITE_NULL;
  if (found)
    *t_ns = sqlite3_column_int64(it->s, 0);
  gw_store_iter_close(it);
  return found;
}

/* NAN when NULL; NAN and damage noted when text (never 0). */
static double col_double(const struct gw_store_iter *it, int i) {
  return gw_store_col_double(it->st, it->s, i);
}

struct gw_store_iter *gw_store_iter_gpu_faults(struct gw_store *st, int64_t after_ns) {
  return iter_open(st, NULL,
                   "SELECT t_ns, kind, gpu, code FROM event WHERE kind IN ('xid', 'gpu_lost')"
                   " AND t_ns > ? ORDER BY t_ns",
                   after_ns);
}

int gw_store_next_fault(struct gw_store_iter *it, struct gw_store_fault_row *row) {
  if (!step(it))
    return 0;
  sqlite3_stmt *s = it->s;
  row->t_ns = sqlite3_column_int64(s, 0);
  row->kind = (const char *)sqlite3_column_text(s, 1);
  row->gpu = sqlite3_column_type(s, 2) != SQLITE_NULL && sqlite3_column_int(s, 2) >= 0 ? sqlite3_column_int(s, 2) : -1;
  row->code = sqlite3_column_int64(s, 3);
  return 1;
}

struct gw_store_iter *gw_store_iter_gpu_procs_recent(struct gw_store *st, int64_t within_ns) {
  return iter_open(st, NULL,
                   "SELECT gpu, count(DISTINCT pid), sum(used_mem_bytes) FROM gpu_proc"
                   " WHERE t_ns >= (SELECT max(t_ns) FROM gpu_sample) - ? GROUP BY gpu",
                   within_ns);
}

int gw_store_next_gpu_procs(struct gw_store_iter *it, struct gw_store_gpu_procs_row *row) {
  if (!step(it))
    return 0;
  row->gpu = sqlite3_column_int(it->s, 0);
  row->processes = sqlite3_column_double(it->s, 1);
  row->mem_used_bytes = col_double(it, 2);
  return 1;
}

void gw_store_host_latest(struct gw_store *st, int64_t within_ns, const char *const *columns, size_t ncolumns,
                          double *v) {
  for (size_t i = 0; i < ncolumns; i++)
    v[i] = NAN;
  struct gw_store_iter *it = iter_open(
      st, NULL, "SELECT * FROM host_sample WHERE t_ns >= (SELECT max(t_ns) FROM host_sample) - ? ORDER BY t_ns",
      within_ns);
  while (step(it))
    for (int c = 0; c < sqlite3_column_count(it->s); c++) {
      if (sqlite3_column_type(it->s, c) == SQLITE_NULL)
        continue;
      const char *name = sqlite3_column_name(it->s, c);
      for (size_t i = 0; i < ncolumns; i++)
        if (strcmp(name, columns[i]) == 0)
          v[i] = gw_store_col_double(st, it->s, c);
    }
  gw_store_iter_close(it);
}

struct gw_store_iter *gw_store_iter_disks_latest(struct gw_store *st) {
  return iter_open(st, NULL,
                   "SELECT dev, util_pct, await_ms, r_per_s, w_per_s, read_bps, write_bps, aqu_sz FROM disk_sample"
                   " WHERE t_ns = (SELECT max(t_ns) FROM disk_sample) ORDER BY dev",
                   NO_ARG);
}

int gw_store_next_disk(struct gw_store_iter *it, struct gw_store_disk_row *row) {
  if (!step(it))
    return 0;
  row->dev = (const char *)sqlite3_column_text(it->s, 0);
  for (int k = 0; k < GW_STORE_DISK_NFIELDS; k++)
    row->v[k] = col_double(it, k + 1);
  return 1;
}
