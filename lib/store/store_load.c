#include "store/store_load.h"
#include "store_sql.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/activity.h"
#include "core/cuda_calls.h"
#include "core/util.h"
#include "store/store.h"

/* Times are ns since 1970. One outside 0 .. 4e18 (the year 2096) is damage,
 * not data: its row is skipped (a run time reads as unknown), so that
 * differences of times and sums of a time and a span never overflow. */
#define TIME_MAX_NS 4000000000000000000LL
static int time_ok(int64_t t) {
  return t >= 0 && t <= TIME_MAX_NS;
}

/* The recording being loaded, so that every loop below notes damage in it
 * (gw_store_step, gw_store_col_double); gw_store_load_recording sets it and
 * refuses the load when damage was noted. One load per thread at a time. */
static _Thread_local struct gw_store *loading;

/* A row, or 0 at the end of the table or on damage (noted: not the end). */
static int next_row(sqlite3_stmt *s) {
  return gw_store_step(loading, s);
}

/* A number, NAN when NULL, NAN and damage noted when text (never 0). */
static double col_double(sqlite3_stmt *s, int i) {
  return gw_store_col_double(loading, s, i);
}

/* A GPU metric as NVML could have given it, else unknown (NAN): finite and
 * below 4e18, integer metrics (NVML's unsigned counters, clocks, bitmasks)
 * never negative, P-states 0 to 32. The analysis casts some of these to
 * integers, which must not overflow on a damaged file. */
static double metric_value(int m, double v) {
  if (!(fabs(v) <= 4e18) || (gw_gpu_metric_info[m].is_integer && v < 0) || (m == GW_M_pstate && v > 32))
    return NAN;
  return v;
}

/* An integer column (a pid, a GPU index): text there is damage, noted as
 * for a number (SQLite would read '12abc' as 12), and the value is SQLite's. */
static int64_t col_int(sqlite3_stmt *s, int i) {
  (void)col_double(s, i);
  return sqlite3_column_int64(s, i);
}

static void col_text(sqlite3_stmt *s, int i, char *dst, size_t cap) {
  const unsigned char *t = sqlite3_column_text(s, i);
  gw_strlcpy(dst, t ? (const char *)t : "", cap);
}

/* The recording's name for messages: its path (a recording read from memory has no file name). */
static const char *recording_name(sqlite3 *db) {
  return loading ? gw_store_path(loading) : sqlite3_db_filename(db, "main");
}

static gw_status prep(sqlite3 *db, const char *sql, sqlite3_stmt **s, struct gw_err *err) {
  if (sqlite3_prepare_v2(db, sql, -1, s, NULL) != SQLITE_OK) {
    /* a table or column of schema 1 that is gone: damage, named */
    gw_err_set(err, "%s: damaged recording: %s", recording_name(db), sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  return GW_OK;
}

/* Appends word to buf as the shell reads it back (gw_shell_quote), after a
 * space. 0, or -1 when it does not fit. */
static int shell_word(char *buf, size_t cap, size_t *len, const char *word) {
  char quoted[4096];
  if (gw_shell_quote(word, quoted, sizeof quoted) != 0)
    return -1;
  size_t n = strlen(quoted);
  if (*len + (*len ? 1 : 0) + n + 1 > cap)
    return -1;
  if (*len)
    buf[(*len)++] = ' ';
  memcpy(buf + *len, quoted, n + 1);
  *len += n;
  return 0;
}

/* run.command is a JSON array of strings; anything else (an import, a
 * damaged column) leaves the command unknown: suggestions then say CMD.
 * Kept twice: as words (command_argv) and as one shell line (command, ""
 * when it does not fit). */
static void load_command(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  size_t len = 0;
  int too_long = 0;
  rec->command[0] = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT j.value FROM run, json_each(run.command) AS j WHERE run.id = 1 AND"
                         " json_valid(run.command) AND json_type(run.command) = 'array' AND j.type = 'text'"
                         " ORDER BY j.key",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const unsigned char *t = sqlite3_column_text(s, 0);
    rec->command_argv = gw_xrealloc(rec->command_argv, (size_t)(rec->command_argc + 2) * sizeof *rec->command_argv);
    rec->command_argv[rec->command_argc++] = gw_xstrdup(t ? (const char *)t : "");
    rec->command_argv[rec->command_argc] = NULL;
    if (!too_long && shell_word(rec->command, sizeof rec->command, &len, t ? (const char *)t : "") != 0)
      too_long = 1;
  }
  sqlite3_finalize(s);
  if (too_long)
    rec->command[0] = 0;
}

static gw_status load_run(sqlite3 *db, struct gw_recording *rec, struct gw_err *err) {
  sqlite3_stmt *s;
  gw_status rc = prep(db,
                      "SELECT started_ns, ended_ns, physical_cores, logical_cpus, interval_ms, gpu_note, source,"
                      " hostname FROM run WHERE id = 1",
                      &s, err);
  if (rc)
    return rc;
  if (next_row(s)) {
    rec->started_ns = time_ok(col_int(s, 0)) ? sqlite3_column_int64(s, 0) : 0;
    rec->ended_ns = time_ok(col_int(s, 1)) ? sqlite3_column_int64(s, 1) : 0;
    rec->physical_cores = sqlite3_column_int(s, 2);
    rec->logical_cpus = sqlite3_column_int(s, 3);
    rec->interval_ms = sqlite3_column_int(s, 4);
    col_text(s, 5, rec->gpu_note, sizeof rec->gpu_note);
    col_text(s, 6, rec->source, sizeof rec->source);
    col_text(s, 7, rec->hostname, sizeof rec->hostname);
  }
  sqlite3_finalize(s);
  load_command(db, rec);
  return GW_OK;
}

/* Text or a blob in an integer column the loader only compares in SQL is
 * noted as damage (naming the table and column); the load is refused at
 * its end, as for any damage. */
static void note_text(sqlite3 *db, const char *table, const char *column) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE typeof(%s) IN ('text', 'blob') LIMIT 1", column, table, column);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return; /* a missing column fails the loader's own query, which names it */
  if (next_row(s))
    (void)col_double(s, 0); /* notes it */
  sqlite3_finalize(s);
}

/* GPUs are those with facts in the gpu table or samples in gpu_sample. An
 * index that is not a small whole number (NVML's are) is damage: left out. */
/* Prepares sql when table is there: 1 when *s is ready to step; 0 when the
 * table is missing or the statement does not prepare (a file from before
 * the query's columns), and the loader goes on without those rows. */
static int prepare_from(sqlite3 *db, const char *table, const char *sql, sqlite3_stmt **s) {
  return gw_store_table_exists(db, table) && sqlite3_prepare_v2(db, sql, -1, s, NULL) == SQLITE_OK;
}

/* Room for one more of n items in items: doubles *cap when full, starting
 * at first_cap. */
static void *room_for_one_more(void *items, size_t n, size_t *cap, size_t first_cap, size_t item_bytes) {
  if (n < *cap)
    return items;
  *cap = *cap ? 2 * *cap : first_cap;
  return gw_xrealloc(items, *cap * item_bytes);
}

static gw_status load_gpu_list(sqlite3 *db, struct gw_recording *rec, struct gw_err *err) {
  /* the queries below pass over a GPU index that is text: rows that would
   * vanish (a GPU with no samples reads as no data) are damage, said so */
  note_text(db, "gpu", "gpu");
  note_text(db, "gpu_sample", "gpu");
  sqlite3_stmt *s;
  gw_status rc = prep(db,
                      "SELECT gpu FROM gpu WHERE typeof(gpu) = 'integer' AND gpu BETWEEN 0 AND 1023 UNION"
                      " SELECT DISTINCT gpu FROM gpu_sample WHERE typeof(gpu) = 'integer' AND gpu BETWEEN 0 AND 1023"
                      " ORDER BY 1",
                      &s, err);
  if (rc)
    return rc;
  size_t cap = 0;
  while (next_row(s)) {
    rec->gpus = room_for_one_more(rec->gpus, (size_t)rec->ngpus, &cap, 4, sizeof *rec->gpus);
    struct gw_gpu_series *g = &rec->gpus[rec->ngpus++];
    memset(g, 0, sizeof *g);
    g->gpu = sqlite3_column_int(s, 0);
    g->mem_total_bytes = g->power_default_limit_mw = g->sm_clock_max_mhz = NAN;
    g->pcie_gen_max = g->pcie_width_max = NAN;
    g->gpm_supported = -1;
  }
  sqlite3_finalize(s);
  if ((rc = prep(db,
                 "SELECT gpu, name, mem_total_bytes, power_default_limit_mw, sm_clock_max_mhz, pcie_gen_max,"
                 " pcie_width_max, gpm_supported FROM gpu",
                 &s, err)))
    return rc;
  while (next_row(s)) {
    int id = sqlite3_column_int(s, 0);
    for (int i = 0; i < rec->ngpus; i++) {
      struct gw_gpu_series *g = &rec->gpus[i];
      if (g->gpu != id)
        continue;
      col_text(s, 1, g->name, sizeof g->name);
      g->mem_total_bytes = col_double(s, 2);
      g->power_default_limit_mw = col_double(s, 3);
      g->sm_clock_max_mhz = col_double(s, 4);
      g->pcie_gen_max = col_double(s, 5);
      g->pcie_width_max = col_double(s, 6);
      g->gpm_supported = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 7);
    }
  }
  sqlite3_finalize(s);
  return GW_OK;
}

/* Load one metric table (gpu_sample or gpu_health) of one GPU. A column the
 * file lacks reads as NULL: a metric may have moved between the fast and the
 * slow table since the file was written (energy_mj did). */
static gw_status load_metric_table(sqlite3 *db, struct gw_recording *rec, int gi, enum gw_metric_table table,
                                   uint64_t unkept, struct gw_err *err) {
  struct gw_gpu_series *g = &rec->gpus[gi];
  const char *tname = table == GW_TABLE_FAST ? "gpu_sample" : "gpu_health";
  char sql[4096];
  size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT t_ns");
  int cols[GW_GPU_NMETRICS], ncols = 0;
  const char *other = table == GW_TABLE_FAST ? "gpu_health" : "gpu_sample";
  for (int m = 0; m < GW_GPU_NMETRICS; m++) {
    if (gw_gpu_metric_info[m].table != table)
      continue;
    const char *id = gw_gpu_metric_info[m].id;
    /* SQLite's parsed schema: a query on pragma_table_info per table and
     * GPU cost more than loading a small recording's rows */
    int present = gw_store_column_exists(db, tname, id);
    /* every version wrote every metric into one of the two tables: in neither, a column was dropped */
    if (!present && !gw_store_column_exists(db, other, id)) {
      gw_err_set(err, "%s: damaged recording: the column %s is in neither gpu_sample nor gpu_health",
                 recording_name(db), id);
      return GW_EINPUT;
    }
    len += (size_t)snprintf(sql + len, sizeof sql - len, present ? ", %s" : ", NULL /* %s */", id);
    cols[ncols++] = m;
  }
  snprintf(sql + len, sizeof sql - len, " FROM %s WHERE gpu = ? ORDER BY t_ns", tname);
  sqlite3_stmt *s;
  gw_status rc = prep(db, sql, &s, err);
  if (rc)
    return rc;
  sqlite3_bind_int(s, 1, g->gpu);
  size_t n = 0, cap = 0;
  int64_t *t = NULL;
  double *arr[GW_GPU_NMETRICS] = {0};
  /* The sampler reads every GPU at each tick under one t_ns: while this GPU's
   * times are the previous GPU's, they are not copied but shared (8 bytes a
   * tick a GPU, 48 MB on a day of 8 GPUs at 10 Hz); gw_recording_free frees a
   * shared array once. A copy made and freed after the fact would leave the
   * heap fragmented (glibc's mmap threshold rises to the freed size). */
  const struct gw_gpu_series *prev = gi > 0 ? &rec->gpus[gi - 1] : NULL;
  int64_t *prev_t = !prev ? NULL : table == GW_TABLE_FAST ? prev->t_ns : prev->ht_ns;
  size_t prev_n = !prev ? 0 : table == GW_TABLE_FAST ? prev->n : prev->nh;
  int own = !prev_t; /* t is this GPU's own array */
  while (next_row(s)) {
    if (!time_ok(col_int(s, 0)))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 256;
      if (own)
        t = gw_xrealloc(t, cap * sizeof *t);
      for (int c = 0; c < ncols; c++)
        if (!((unkept >> cols[c]) & 1))
          arr[cols[c]] = gw_xrealloc(arr[cols[c]], cap * sizeof(double));
    }
    int64_t t_ns = sqlite3_column_int64(s, 0);
    if (!own && (n >= prev_n || prev_t[n] != t_ns)) {
      own = 1;
      t = gw_xcalloc(cap, sizeof *t);
      memcpy(t, prev_t, n * sizeof *t);
    }
    if (own)
      t[n] = t_ns;
    for (int c = 0; c < ncols; c++) {
      double v = col_double(s, c + 1); /* an unkept column is checked all the same */
      if (!((unkept >> cols[c]) & 1))
        arr[cols[c]][n] = metric_value(cols[c], v);
    }
    n++;
  }
  sqlite3_finalize(s);
  if (!own && n > 0) { /* the previous GPU's times, all of them or the first n */
    t = n == prev_n ? prev_t : gw_xcalloc(n, sizeof *t);
    if (t != prev_t)
      memcpy(t, prev_t, n * sizeof *t);
  }
  if (table == GW_TABLE_FAST) {
    g->n = n;
    g->t_ns = t;
    for (int m = 0; m < GW_GPU_NMETRICS; m++)
      if (arr[m])
        g->m[m] = gw_column_adopt(arr[m], n);
  } else { /* read as they were stored: packed now (the fast ones once the analysis filled them, gpu_loaded) */
    g->nh = n;
    g->ht_ns = t;
    for (int m = 0; m < GW_GPU_NMETRICS; m++)
      if (arr[m]) {
        g->h[m] = gw_column_adopt(arr[m], n);
        gw_column_pack(g->h[m]);
      }
  }
  return GW_OK;
}

static double *host_col(struct gw_host_series *h) {
  double *a = gw_xcalloc(h->n ? h->n : 1, sizeof *a);
  for (size_t i = 0; i < h->n; i++)
    a[i] = NAN;
  return a;
}

/* Exact tick lookup: the per-process and disk rows share host_sample's t_ns.
 * *hint is the tick found last: rows come in time order, so the same tick or
 * the next one is tried before a binary search. */
static size_t host_tick(const struct gw_host_series *h, int64_t t_ns, size_t *hint) {
  size_t lo;
  if (*hint < h->n && h->t_ns[*hint] == t_ns)
    lo = *hint;
  else if (*hint + 1 < h->n && h->t_ns[*hint + 1] == t_ns)
    lo = *hint + 1;
  else
    lo = gw_first_at_or_after(h->t_ns, h->n, t_ns);
  if (lo < h->n && h->t_ns[lo] == t_ns) {
    *hint = lo;
    return lo;
  }
  return SIZE_MAX;
}

/* Rows (t_ns, value 1, ..., value n) of a per-tick query: value j of the row
 * at host_sample tick i goes to cols[j - 1][i]; rows at other ticks are
 * skipped. Finalizes s. */
static void fill_host_ticks(sqlite3_stmt *s, const struct gw_host_series *h, double *const *cols, int ncols) {
  size_t hint = 0;
  while (next_row(s)) {
    size_t i = host_tick(h, col_int(s, 0), &hint);
    if (i == SIZE_MAX)
      continue;
    for (int j = 0; j < ncols; j++)
      cols[j][i] = col_double(s, j + 1);
  }
  sqlite3_finalize(s);
}

/* Puts the host series in time order, where its rows were not written in it
 * (an edited or merged file): a stable sort, so that rows of one time keep
 * the order they were read in. */
struct host_row_order {
  int64_t t_ns;
  size_t row;
};
static int cmp_host_row(const void *a, const void *b) {
  const struct host_row_order *x = a, *y = b;
  int c = gw_cmp_i64(x->t_ns, y->t_ns);
  return c ? c : gw_cmp_i64((int64_t)x->row, (int64_t)y->row);
}
static void permute_doubles(double *a, const struct host_row_order *order, size_t n, double *scratch) {
  for (size_t i = 0; i < n; i++)
    scratch[i] = a[order[i].row];
  memcpy(a, scratch, n * sizeof *a);
}
static void sort_host_by_time(struct gw_host_series *h) {
  struct host_row_order *order = gw_xcalloc(h->n, sizeof *order);
  for (size_t i = 0; i < h->n; i++)
    order[i] = (struct host_row_order){h->t_ns[i], i};
  qsort(order, h->n, sizeof *order, cmp_host_row);
  double *scratch = gw_xcalloc(h->n, sizeof *scratch);
  permute_doubles(h->cpu_busy_pct, order, h->n, scratch);
  permute_doubles(h->iowait_pct, order, h->n, scratch);
  permute_doubles(h->on_battery, order, h->n, scratch);
  for (size_t i = 0; i < h->n; i++)
    h->t_ns[i] = order[i].t_ns;
  free(scratch);
  free(order);
}

/* The disk rows of each host tick folded as max(util_pct), sum(read_bps) and
 * sum(write_bps) would fold them (NULLs left out; a tick with none stays NAN).
 * Folded here rather than by GROUP BY t_ns: disk_sample has no time index,
 * and SQLite's sort of a day's rows spilled to temporary files (about 0.5 s of
 * a day-long report). Finalizes s. */
static void fold_disk_ticks(sqlite3_stmt *s, const struct gw_host_series *h) {
  size_t hint = 0;
  while (next_row(s)) {
    size_t i = host_tick(h, col_int(s, 0), &hint);
    if (i == SIZE_MAX)
      continue;
    double util_pct = col_double(s, 1), read_bps = col_double(s, 2), write_bps = col_double(s, 3);
    if (!isnan(util_pct) && (isnan(h->disk_util_max_pct[i]) || util_pct > h->disk_util_max_pct[i]))
      h->disk_util_max_pct[i] = util_pct;
    if (!isnan(read_bps))
      h->disk_read_bps[i] = isnan(h->disk_read_bps[i]) ? read_bps : h->disk_read_bps[i] + read_bps;
    if (!isnan(write_bps))
      h->disk_write_bps[i] = isnan(h->disk_write_bps[i]) ? write_bps : h->disk_write_bps[i] + write_bps;
  }
  sqlite3_finalize(s);
}

static gw_status load_host(sqlite3 *db, const struct gw_store_load_params *p, struct gw_host_series *h,
                           struct gw_err *err) {
  sqlite3_stmt *s;
  /* read in file order and sorted here only when out of order: host_sample
   * has no time index, and ORDER BY t_ns sorted a day's rows through
   * temporary files */
  gw_status rc = prep(db, "SELECT t_ns, cpu_busy_pct, cpu_iowait_pct, on_battery, governor FROM host_sample", &s, err);
  if (rc)
    return rc;
  size_t cap = 0;
  int in_order = 1;
  int64_t governor_t_ns = INT64_MIN;
  while (next_row(s)) {
    if (!time_ok(col_int(s, 0)))
      continue;
    if (h->n == cap) {
      cap = cap ? cap * 2 : 256;
      h->t_ns = gw_xrealloc(h->t_ns, cap * sizeof *h->t_ns);
      h->cpu_busy_pct = gw_xrealloc(h->cpu_busy_pct, cap * sizeof(double));
      h->iowait_pct = gw_xrealloc(h->iowait_pct, cap * sizeof(double));
      h->on_battery = gw_xrealloc(h->on_battery, cap * sizeof(double));
    }
    int64_t t_ns = sqlite3_column_int64(s, 0);
    if (h->n > 0 && t_ns < h->t_ns[h->n - 1])
      in_order = 0;
    h->t_ns[h->n] = t_ns;
    h->cpu_busy_pct[h->n] = col_double(s, 1);
    h->iowait_pct[h->n] = col_double(s, 2);
    h->on_battery[h->n] = col_double(s, 3);
    /* the latest row's governor, as the last of a time-ordered read */
    if (sqlite3_column_type(s, 4) != SQLITE_NULL && t_ns >= governor_t_ns) {
      col_text(s, 4, h->governor, sizeof h->governor);
      governor_t_ns = t_ns;
    }
    h->n++;
  }
  sqlite3_finalize(s);
  if (!in_order)
    sort_host_by_time(h);
  h->main_cpu_pct = host_col(h);
  h->main_threads_running = host_col(h);
  h->launch_cpu_pct = host_col(h);
  h->main_thread_cpu_pct = host_col(h);
  h->workers = host_col(h);
  h->worker_cpu_max_pct = host_col(h);
  h->workers_saturated = host_col(h);
  h->disk_util_max_pct = host_col(h);
  h->disk_read_bps = host_col(h);
  h->disk_write_bps = host_col(h);

  /* The training processes: the target, and under a launcher (torchrun,
   * mpirun) the ranks, which are its children but hold a GPU (gpu_proc).
   * Their CPU is the main thread's story; other descendants are loaders. */
  /* A recording without gpu_proc (damaged or hand-made) keeps the roles as stored. */
  const char *ranks = gw_store_table_exists(db, "gpu_proc") ? "pid IN (SELECT pid FROM gpu_proc)" : "0";
  /* The queries below pick rows by role and pid in SQL, where text ('high' = 0 is false) would drop or
   * add a row with no value of ours to check: such a row is damage. */
  note_text(db, "proc_sample", "role");
  note_text(db, "proc_sample", "pid");
  if (gw_store_table_exists(db, "gpu_proc"))
    note_text(db, "gpu_proc", "pid");
  char main_sql[256], worker_sql[512];
  snprintf(main_sql, sizeof main_sql,
           "SELECT t_ns, max(cpu_pct), max(threads_running) FROM proc_sample WHERE role = 0 OR %s GROUP BY t_ns",
           ranks);
  if ((rc = prep(db, main_sql, &s, err)))
    return rc;
  fill_host_ticks(s, h, (double *const[]){h->main_cpu_pct, h->main_threads_running}, 2);
  /* the launching threads, the target's only (the recorder reads threads of
   * the process it started) */
  if (gw_store_column_exists(db, "proc_sample", "launch_threads_cpu_pct")) {
    if ((rc = prep(db,
                   "SELECT t_ns, max(launch_threads_cpu_pct), max(main_thread_cpu_pct) FROM proc_sample WHERE "
                   "role = 0 AND launch_threads_cpu_pct IS NOT NULL GROUP BY t_ns",
                   &s, err)))
      return rc;
    fill_host_ticks(s, h, (double *const[]){h->launch_cpu_pct, h->main_thread_cpu_pct}, 2);
  }

  /* cpu_pct is NULL on a process's first sample; count() only counts known ones.
   * workers_saturated holds the saturated count (0, not NULL, when no worker's
   * cpu_pct is known); the pool is saturated when at least half of it is (see
   * gw_workers_saturated_at). */
  snprintf(
      worker_sql, sizeof worker_sql,
      "SELECT t_ns, count(*), max(cpu_pct), coalesce(sum(cpu_pct >= ?), 0) FROM proc_sample WHERE role = 1 AND NOT (%s)"
      " AND pid IN (SELECT pid FROM proc_sample WHERE role = 1 GROUP BY pid"
      " HAVING avg(cpu_pct) >= ? OR sum(comm LIKE 'pt_data_worker%%') > 0)"
      " GROUP BY t_ns",
      ranks);
  if ((rc = prep(db, worker_sql, &s, err)))
    return rc;
  sqlite3_bind_double(s, 1, p->worker_saturated_cpu_pct);
  /* a descendant that never works (an idle compile-worker pool) is no loader, unless PyTorch named it a
   * DataLoader worker (pt_data_worker): a worker that waits on a remote store works at 2% of a core */
  sqlite3_bind_double(s, 2, p->worker_min_avg_cpu_pct);
  fill_host_ticks(s, h, (double *const[]){h->workers, h->worker_cpu_max_pct, h->workers_saturated}, 3);

  if ((rc = prep(db, "SELECT t_ns, util_pct, read_bps, write_bps FROM disk_sample", &s, err)))
    return rc;
  fold_disk_ticks(s, h);
  return GW_OK;
}

static gw_status load_events(sqlite3 *db, struct gw_recording *rec, struct gw_err *err) {
  sqlite3_stmt *s;
  gw_status rc = prep(db, "SELECT t_ns, kind, gpu, code, message, pid FROM event ORDER BY t_ns", &s, err);
  if (rc)
    return rc;
  size_t cap = 0;
  while (next_row(s)) {
    if (!time_ok(col_int(s, 0)))
      continue;
    rec->events = room_for_one_more(rec->events, rec->nevents, &cap, 64, sizeof *rec->events);
    struct gw_event_row *e = &rec->events[rec->nevents++];
    e->t_ns = sqlite3_column_int64(s, 0);
    col_text(s, 1, e->kind, sizeof e->kind);
    /* a GPU index, a code (Xid number, reason bits) or a pid that is text is
     * damage (col_int notes it): '12abc' would name GPU 12 */
    e->gpu = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 : (int)col_int(s, 2);
    e->code = sqlite3_column_type(s, 3) == SQLITE_NULL ? 0 : col_int(s, 3);
    char message[200]; /* the length a message had when each row held its own */
    col_text(s, 4, message, sizeof message);
    e->message = gw_text_intern(&rec->texts, message);
    e->pid = sqlite3_column_type(s, 5) == SQLITE_INTEGER ? sqlite3_column_int64(s, 5) : -1;
    if (sqlite3_column_type(s, 5) == SQLITE_TEXT)
      (void)col_int(s, 5);
  }
  sqlite3_finalize(s);
  gw_text_pool_end_interning(&rec->texts);
  /* The hook's columns exist in recordings made since it came, compile_ns and shape since a later hook;
   * older ones have the first three. */
  static const char *const step_queries[] = {
      "SELECT t_start_ns, t_end_ns, step, pid, rank, data_wait_ns, batch_size, samples, source, compile_ns, shape"
      " FROM step ORDER BY t_start_ns",
      "SELECT t_start_ns, t_end_ns, step, pid, rank, data_wait_ns, batch_size, samples, source"
      " FROM step ORDER BY t_start_ns"};
  /* a query is tried only when the column it adds last is there (a
   * prepare that fails still parses the whole statement) */
  static const char *const step_query_last_column[] = {"shape", "source"};
  s = NULL;
  for (size_t q = 0; q < sizeof step_queries / sizeof *step_queries && !s; q++)
    if (gw_store_column_exists(db, "step", step_query_last_column[q]) &&
        sqlite3_prepare_v2(db, step_queries[q], -1, &s, NULL) != SQLITE_OK) {
      sqlite3_finalize(s);
      s = NULL;
    }
  if (!s && (rc = prep(db, "SELECT t_start_ns, t_end_ns, step FROM step ORDER BY t_start_ns", &s, err)))
    return rc;
  int hook_columns = sqlite3_column_count(s) > 3;
  int compile_columns = sqlite3_column_count(s) > 9;
  cap = 0;
  while (next_row(s)) {
    if (!time_ok(col_int(s, 0)) || !time_ok(col_int(s, 1)))
      continue;
    rec->steps = room_for_one_more(rec->steps, rec->nsteps, &cap, 256, sizeof *rec->steps);
    struct gw_step_row *st = &rec->steps[rec->nsteps++];
    st->start_ns = sqlite3_column_int64(s, 0);
    st->end_ns = sqlite3_column_int64(s, 1);
    st->step = sqlite3_column_int64(s, 2);
    int64_t *opt[] = {&st->pid, &st->rank, &st->data_wait_ns, &st->batch_size, &st->samples};
    for (int c = 0; c < 5; c++)
      *opt[c] = hook_columns && sqlite3_column_type(s, 3 + c) == SQLITE_INTEGER ? sqlite3_column_int64(s, 3 + c) : -1;
    st->compile_ns = compile_columns && sqlite3_column_type(s, 9) == SQLITE_INTEGER ? sqlite3_column_int64(s, 9) : -1;
    st->shape[0] = '\0';
    if (compile_columns)
      col_text(s, 10, st->shape, sizeof st->shape);
    const unsigned char *source = hook_columns ? sqlite3_column_text(s, 8) : NULL;
    st->from_loader = source && strcmp((const char *)source, "python_hook_loader") == 0;
    /* Before the hook wrote NULL for it, an optimizer step that saw no
     * DataLoader batch got a wait of 0 and empty samples (with a batch,
     * samples held its size): that pair means "not known". */
    if (source && strcmp((const char *)source, "python_hook") == 0 && st->data_wait_ns == 0 && st->samples < 0)
      st->data_wait_ns = -1;
  }
  sqlite3_finalize(s);
  return GW_OK;
}

static void push_iv(struct gw_interval **arr, size_t *n, int64_t a, int64_t b) {
  /* grow by doubling: capacity is the next power of two above n */
  if ((*n & (*n - 1)) == 0)
    *arr = gw_xrealloc(*arr, (*n ? *n * 2 : 1) * sizeof **arr);
  (*arr)[*n].start_ns = a;
  (*arr)[*n].end_ns = b < a ? a : b;
  (*n)++;
}

static struct gw_gpu_series *gpu_by_id(struct gw_recording *rec, int id) {
  for (int i = 0; i < rec->ngpus; i++)
    if (rec->gpus[i].gpu == id)
      return &rec->gpus[i];
  return NULL;
}

/* The windows of a sampled trace, for the multi-GPU summary's shares. */
static void load_windows(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!prepare_from(db, "trace_window",
                    "SELECT pid, start_ns, end_ns FROM trace_window WHERE mode = 'sampled'"
                    " AND start_ns IS NOT NULL AND end_ns > start_ns ORDER BY start_ns",
                    &s))
    return;
  size_t cap = 0;
  while (next_row(s)) {
    if (!time_ok(col_int(s, 1)) || !time_ok(col_int(s, 2)))
      continue;
    rec->windows = room_for_one_more(rec->windows, rec->nwindows, &cap, 64, sizeof *rec->windows);
    struct gw_trace_window *w = &rec->windows[rec->nwindows++];
    w->pid = sqlite3_column_int64(s, 0);
    w->start_ns = sqlite3_column_int64(s, 1);
    w->end_ns = sqlite3_column_int64(s, 2);
    w->node = 0; /* node_merge numbers the recordings of a multi-node report */
  }
  sqlite3_finalize(s);
}

/* When the tracer gave CUPTI to another client (tracer/README.md, "Another
 * CUPTI client"): its notes, per process, in time order. */
static void load_tracer_aside(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!prepare_from(db, "trace_note",
                    "SELECT pid, t_ns, substr(text, 1, 5) FROM trace_note WHERE text LIKE 'stood aside at %'"
                    " OR text LIKE 'came back at %' ORDER BY pid, t_ns",
                    &s))
    return;
  int64_t pid = -1, since_ns = 0; /* since_ns: the open episode's start, 0 none */
  for (;;) {
    int row = next_row(s);
    int64_t p = row ? col_int(s, 0) : -2, t = row ? col_int(s, 1) : 0;
    if (row && !time_ok(t))
      continue;
    if (p != pid && since_ns && rec->ended_ns > since_ns) /* still aside when that process's trace ended */
      rec->tracer_aside_total_ns += rec->ended_ns - since_ns;
    if (p != pid)
      since_ns = 0;
    pid = p;
    if (!row)
      break;
    const char *what = (const char *)sqlite3_column_text(s, 2);
    if (what && strncmp(what, "stood", 5) == 0 && !since_ns) {
      since_ns = t;
      if (!rec->tracer_aside_count++ || t < rec->tracer_aside_first_ns)
        rec->tracer_aside_first_ns = t;
    } else if (what && strncmp(what, "came ", 5) == 0 && since_ns) {
      rec->tracer_aside_total_ns += t > since_ns ? t - since_ns : 0;
      since_ns = 0;
    }
  }
  sqlite3_finalize(s);
}

/* What a host call of process pid tells the GPU whose kernels that process
 * ran (one rank, one GPU; with one GPU and no kernel owner known, that one):
 * HOST_CALL a busy host, HOST_SYNC a host waiting, HOST_LAUNCH a launch. */
enum { HOST_CALL = 1, HOST_SYNC = 2, HOST_LAUNCH = 4 };
static void push_host_iv(struct gw_recording *rec, int64_t pid, int64_t a, int64_t b, int what) {
  for (int i = 0; i < rec->ngpus; i++) {
    struct gw_gpu_series *g = &rec->gpus[i];
    if (g->trace_pid == pid || (g->trace_pid == 0 && rec->ngpus == 1)) {
      if (what & HOST_CALL)
        push_iv(&g->api, &g->napi, a, b);
      if (what & HOST_SYNC)
        push_iv(&g->syncs, &g->nsyncs, a, b);
      if (what & HOST_LAUNCH)
        g->nlaunch_calls++;
    }
  }
}

/* The traced CUDA calls of the host (api table), and among them and in the
 * sync table the calls that waited for the GPU. The timeline reads from them
 * whether the host kept issuing work through a gap, and whether it opened
 * the gap by waiting. Only for a full timeline: a sampled trace keeps the
 * counter ledger. */
static void load_host_api(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!rec->has_timeline && !rec->timeline_sampled)
    return;
  if (prepare_from(db, "api",
                   "SELECT pid, start_ns, end_ns, domain, cbid FROM api"
                   " WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL",
                   &s)) {
    while (next_row(s)) {
      int64_t pid = col_int(s, 0), a = col_int(s, 1), b = col_int(s, 2);
      if (!time_ok(a) || !time_ok(b))
        continue;
      const char *domain = (const char *)sqlite3_column_text(s, 3);
      if (!domain || (strcmp(domain, "runtime") != 0 && strcmp(domain, "driver") != 0)) {
        push_host_iv(rec, pid, a, b, HOST_CALL);
        continue;
      }
      int driver = domain[0] == 'd';
      uint32_t cbid = (uint32_t)sqlite3_column_int64(s, 4);
      push_host_iv(rec, pid, a, b,
                   HOST_CALL | (gw_cuda_call_is_sync(driver, cbid) ? HOST_SYNC : 0) |
                       (gw_cuda_call_is_launch(driver, cbid) ? HOST_LAUNCH : 0));
    }
    sqlite3_finalize(s);
  }
  /* CUPTI's synchronization records: event (1), stream (3) and context (4)
   * synchronize; 2 is a stream waiting on an event, not the host. */
  if (prepare_from(db, "sync",
                   "SELECT pid, start_ns, end_ns FROM sync WHERE sync_type IN (1, 3, 4)"
                   " AND start_ns IS NOT NULL AND end_ns IS NOT NULL",
                   &s)) {
    while (next_row(s)) {
      int64_t pid = col_int(s, 0), a = col_int(s, 1), b = col_int(s, 2);
      if (time_ok(a) && time_ok(b))
        push_host_iv(rec, pid, a, b, HOST_SYNC);
    }
    sqlite3_finalize(s);
  }
}

/* Which process ran on each GPU (the kernel table's busiest pid: a rank),
 * and how many processes shared it at once (gpu_proc). */
static void load_gpu_processes(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (prepare_from(db, "kernel", "SELECT device, pid, count(*) FROM kernel GROUP BY device, pid", &s)) {
    int64_t *best = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *best);
    while (next_row(s)) {
      struct gw_gpu_series *g = gpu_by_id(rec, (int)col_int(s, 0));
      int64_t pid = col_int(s, 1);
      if (!g)
        continue;
      int64_t n = sqlite3_column_int64(s, 2);
      if (n > best[g - rec->gpus]) {
        best[g - rec->gpus] = n;
        g->trace_pid = pid;
      }
    }
    sqlite3_finalize(s);
    free(best);
  }
  if (prepare_from(db, "gpu_proc",
                   "SELECT gpu, max(n) FROM (SELECT gpu, count(DISTINCT pid) AS n FROM gpu_proc"
                   " GROUP BY t_ns, gpu) GROUP BY gpu",
                   &s)) {
    while (next_row(s)) {
      struct gw_gpu_series *g = gpu_by_id(rec, sqlite3_column_int(s, 0));
      if (g)
        g->procs_max = sqlite3_column_int(s, 1);
    }
    sqlite3_finalize(s);
  }
}

/* A process on a GPU that is not part of the recorded job: its pid is in
 * gpu_proc but never in proc_sample (the target's tree) nor in the kernel
 * table (the traced ranks). The one seen most often, with its median memory
 * and SM share, per GPU. */
static void load_other_gpu_processes(sqlite3 *db, struct gw_recording *rec) {
  for (int i = 0; i < rec->ngpus; i++)
    rec->gpus[i].other_share_of_samples = rec->gpus[i].other_mem_bytes = rec->gpus[i].other_sm_pct = NAN;
  if (!gw_store_table_exists(db, "gpu_proc"))
    return;
  /* without the target's processes every pid would look foreign */
  sqlite3_stmt *s;
  if (!prepare_from(db, "proc_sample", "SELECT 1 FROM proc_sample LIMIT 1", &s))
    return;
  int sampled = next_row(s);
  sqlite3_finalize(s);
  if (!sampled)
    return;
  int has_k = gw_store_table_exists(db, "kernel");
  int has_comm = gw_store_column_exists(db, "gpu_proc", "comm"); /* files before the column lack it */
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT gpu, pid, count(*), (SELECT count(DISTINCT t_ns) FROM gpu_proc g2 WHERE g2.gpu = g.gpu),"
           " avg(used_mem_bytes), avg(sm_pct), %s FROM gpu_proc g"
           " WHERE pid NOT IN (SELECT DISTINCT pid FROM proc_sample) %s GROUP BY gpu, pid ORDER BY gpu, 3",
           has_comm ? "max(comm)" : "NULL", has_k ? "AND pid NOT IN (SELECT DISTINCT pid FROM kernel)" : "");
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return;
  while (next_row(s)) { /* ascending count: the last row of a GPU wins */
    struct gw_gpu_series *g = gpu_by_id(rec, (int)col_int(s, 0));
    int64_t pid = col_int(s, 1); /* text here would make any pid look foreign */
    if (!g)
      continue;
    g->other_pid = pid;
    double n = sqlite3_column_double(s, 2), all = sqlite3_column_double(s, 3);
    g->other_share_of_samples = all > 0 ? n / all : NAN;
    g->other_mem_bytes = col_double(s, 4);
    g->other_sm_pct = col_double(s, 5);
    const unsigned char *comm = sqlite3_column_text(s, 6);
    gw_strlcpy(g->other_comm, comm ? (const char *)comm : "", sizeof g->other_comm);
  }
  sqlite3_finalize(s);
}

/* WORLD_SIZE of the recorded environment: more ranks than this file's GPUs
 * means the other ranks ran elsewhere. */
static void load_world_size(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!prepare_from(db, "env", "SELECT value FROM env WHERE name = 'WORLD_SIZE'", &s))
    return;
  if (next_row(s) && sqlite3_column_text(s, 0)) {
    int v = atoi((const char *)sqlite3_column_text(s, 0));
    rec->world_size = v > 0 && v < 1000000 ? v : 0;
  }
  sqlite3_finalize(s);
}

/* {"bfloat16":123,"float32":45}: the counted step's FLOPs per dtype; anything else leaves none. */
static void parse_dtype_flops(const char *json, struct gw_step_flops *f) {
  const char *p = json ? strchr(json, '{') : NULL;
  while (p && f->ndtypes < (int)(sizeof f->dtype / sizeof *f->dtype)) {
    const char *q1 = strchr(p, '"');
    const char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
    const char *colon = q2 ? strchr(q2, ':') : NULL;
    if (!colon || (size_t)(q2 - q1 - 1) >= sizeof f->dtype[0])
      return;
    char *end;
    double v = strtod(colon + 1, &end);
    if (end == colon + 1 || !(v >= 0))
      return;
    memcpy(f->dtype[f->ndtypes], q1 + 1, (size_t)(q2 - q1 - 1));
    f->dtype[f->ndtypes][q2 - q1 - 1] = '\0';
    f->dtype_flops[f->ndtypes++] = v;
    p = strchr(end, ',');
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

enum step_stat { STEP_MEDIAN, STEP_MEAN };

/* The median or mean wall time of the optimizer steps of process pid whose
 * number is in [lo, hi] other than skip; NAN none. The mean is the loop's
 * pace (steps over their time). The median is not: a loop that does not
 * wait for the GPU each step times its steps on the host, which runs ahead
 * until CUDA's launch queue is full and then blocks in one step of every
 * few, so most steps are short and the median is far below the pace (a 1.3
 * ms median beside 4.5 ms of GPU work a step, measured on an H100). */
static double step_ns(const struct gw_recording *rec, int64_t pid, int64_t lo, int64_t hi, int64_t skip,
                      enum step_stat stat) {
  double *v = gw_xcalloc(rec->nsteps + 1, sizeof *v), sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < rec->nsteps; i++) {
    const struct gw_step_row *s = &rec->steps[i];
    if (s->pid == pid && !s->from_loader && s->step >= lo && s->step <= hi && s->step != skip) {
      v[n] = (double)(s->end_ns - s->start_ns);
      sum += v[n++];
    }
  }
  double m = NAN;
  if (n > 0 && stat == STEP_MEAN)
    m = sum / (double)n;
  else if (n > 0) {
    qsort(v, n, sizeof *v, cmp_double);
    m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  free(v);
  return m;
}

#define FLOPS_NEIGHBOUR_STEPS 5 /* either side of the counted step: close enough to share its batch and shape */

/* Table step_flops (schema 2): absent in older recordings, which then have none. */
static void load_step_flops(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!prepare_from(db, "step_flops",
                    "SELECT step, pid, rank, flops, dtype_flops, batch_size, counted_ns, source FROM step_flops"
                    " WHERE flops IS NOT NULL ORDER BY rank, pid",
                    &s))
    return;
  size_t cap = 0;
  while (next_row(s)) {
    double flops = sqlite3_column_double(s, 3);
    if (!(flops >= 0) || rec->nstep_flops >= 100000)
      continue;
    rec->step_flops = room_for_one_more(rec->step_flops, rec->nstep_flops, &cap, 8, sizeof *rec->step_flops);
    struct gw_step_flops *f = &rec->step_flops[rec->nstep_flops++];
    memset(f, 0, sizeof *f);
    int64_t *opt[] = {&f->step, &f->pid, &f->rank};
    for (int c = 0; c < 3; c++)
      *opt[c] = sqlite3_column_type(s, c) == SQLITE_INTEGER ? sqlite3_column_int64(s, c) : -1;
    f->flops = flops;
    parse_dtype_flops((const char *)sqlite3_column_text(s, 4), f);
    f->batch_size = sqlite3_column_type(s, 5) == SQLITE_INTEGER ? sqlite3_column_int64(s, 5) : -1;
    f->counted_ns = sqlite3_column_type(s, 6) == SQLITE_INTEGER ? sqlite3_column_int64(s, 6) : -1;
    col_text(s, 7, f->source, sizeof f->source);
    f->neighbours_median_ns = NAN;
    f->steady_step_ns = NAN;
    if (f->pid >= 0 && f->step >= 0) {
      f->neighbours_median_ns =
          step_ns(rec, f->pid, f->step - FLOPS_NEIGHBOUR_STEPS, f->step + FLOPS_NEIGHBOUR_STEPS, f->step, STEP_MEDIAN);
      /* the first step is warm-up (compilation, allocation, autotuning); a torch.profiler trace's steps come
       * after the profiler's own warm-up and none was slowed by counting, so all of them count */
      if (strcmp(f->source, "kineto") == 0) {
        f->steady_step_ns = step_ns(rec, f->pid, INT64_MIN, INT64_MAX, -1, STEP_MEAN);
        /* import writes ProfilerStep rows of the one rank it keeps steps for without a pid */
        if (isnan(f->steady_step_ns))
          f->steady_step_ns = step_ns(rec, -1, INT64_MIN, INT64_MAX, -1, STEP_MEAN);
      } else
        f->steady_step_ns = step_ns(rec, f->pid, 2, INT64_MAX, f->step, STEP_MEAN);
    }
  }
  sqlite3_finalize(s);
}

/* meta.python_hook_steps is written whenever record enabled the hook. */
static void load_python_hook(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (!prepare_from(db, "meta", "SELECT value FROM meta WHERE key = 'python_hook_steps'", &s))
    return;
  rec->python_hook_enabled = next_row(s);
  sqlite3_finalize(s);
}

/* ---- the thread sampler's tables ---- */

/* A day at 20 Hz of 40 threads is 70 million samples (1.7 GB in this
 * model): past this many rows the other threads' samples are thinned so the
 * whole model stays under 512 MB; the main threads' (the launching threads
 * the idle time is charged to) are kept whole while they fit in half. */
#define THREAD_TICKS_BUDGET 4000000

static int thread_meta_cmp(const void *a, const void *b) {
  int32_t x = ((const struct gw_thread_meta *)a)->tid, y = ((const struct gw_thread_meta *)b)->tid;
  return (x > y) - (x < y);
}

static int thread_tick_cmp(const void *a, const void *b) {
  const struct gw_thread_tick *x = a, *y = b;
  if (x->t_ns != y->t_ns)
    return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
  return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The one number a query gives (a count, a largest rowid); -1 when it cannot be read, 0 for an empty table. */
static int64_t count_of(sqlite3 *db, const char *sql) {
  sqlite3_stmt *s;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

/* 4 M samples of 24 bytes, 96 MB: a day of 50 Hz samples of one rank. A
 * day of 8 ranks (35 M) would not fit the report's 512 MB, so a recording
 * with more keeps every k-th sample of each process, evenly spaced. */
#define GW_PY_TICKS_MAX 4000000
#define PY_PIDS_COUNTED 256 /* processes thinned apart; the rest share one counter */

static void load_thread_meta(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (prepare_from(db, "meta",
                   "SELECT key, value FROM meta WHERE key IN ('thread_sampling_hz', 'thread_sampling_note')", &s)) {
    while (next_row(s)) {
      const char *key = (const char *)sqlite3_column_text(s, 0), *value = (const char *)sqlite3_column_text(s, 1);
      if (!key || !value)
        continue;
      double hz;
      if (strcmp(key, "thread_sampling_hz") == 0 && gw_parse_double(value, &hz) == 0 && hz > 0 && hz <= 100000)
        rec->thread_sampling_hz = hz;
      else if (strcmp(key, "thread_sampling_note") == 0)
        gw_strlcpy(rec->thread_sampling_note, value, sizeof rec->thread_sampling_note);
    }
    sqlite3_finalize(s);
  }
  if (!prepare_from(db, "thread_info",
                    "SELECT tid, pid, role, comm FROM thread_info WHERE typeof(tid) = 'integer' AND tid > 0"
                    " AND tid <= 2147483647 AND typeof(pid) = 'integer' AND pid > 0 AND pid <= 2147483647"
                    " ORDER BY tid",
                    &s))
    return;
  size_t cap = 0;
  while (next_row(s)) {
    rec->threads = room_for_one_more(rec->threads, rec->nthreads, &cap, 64, sizeof *rec->threads);
    struct gw_thread_meta *m = &rec->threads[rec->nthreads++];
    m->tid = (int32_t)sqlite3_column_int64(s, 0);
    m->pid = (int32_t)sqlite3_column_int64(s, 1);
    int role = sqlite3_column_int(s, 2);
    m->role = role >= 0 && role <= 6 ? role : 0; /* enum gw_thread_role; unknown numbers read as other */
    col_text(s, 3, m->comm, sizeof m->comm);
  }
  sqlite3_finalize(s);
}

static const struct gw_thread_meta *thread_of(const struct gw_recording *rec, int32_t tid) {
  struct gw_thread_meta key = {.tid = tid};
  if (!rec->nthreads)
    return NULL;
  return bsearch(&key, rec->threads, rec->nthreads, sizeof key, thread_meta_cmp);
}

static void load_thread_ticks(sqlite3 *db, struct gw_recording *rec) {
  rec->thread_ticks_stride = 1;
  rec->thread_main_ticks_stride = 1;
  if (!gw_store_table_exists(db, "thread_sample"))
    return;
  /* rows are only appended: the largest rowid is the count, without a scan */
  int64_t total = count_of(db, "SELECT max(rowid) FROM thread_sample");
  if (total <= 0)
    return;
  if (total > THREAD_TICKS_BUDGET) {
    int64_t mains = count_of(db, "SELECT count(*) FROM thread_sample WHERE tid IN"
                                 " (SELECT tid FROM thread_info WHERE role = 1)");
    if (mains < 0)
      mains = 0;
    int64_t half = THREAD_TICKS_BUDGET / 2;
    rec->thread_main_ticks_stride = mains > half ? (int)((mains + half - 1) / half) : 1;
    int64_t others = total - mains, room = THREAD_TICKS_BUDGET - mains / rec->thread_main_ticks_stride;
    rec->thread_ticks_stride = others > room ? (int)((others + room - 1) / room) : 1;
  }
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT t_ns, tid, state, wait, syscall, cpu_ns FROM thread_sample ORDER BY rowid", -1, &s,
                         NULL) != SQLITE_OK)
    return;
  /* per thread: samples seen, for the stride (indexed like rec->threads) */
  uint32_t *seen = gw_xcalloc(rec->nthreads + 1, sizeof *seen);
  size_t cap = 0;
  int sorted = 1;
  while (next_row(s)) {
    int64_t t = col_int(s, 0), tid = col_int(s, 1);
    if (!time_ok(t) || tid <= 0 || tid > INT32_MAX)
      continue;
    const struct gw_thread_meta *m = thread_of(rec, (int32_t)tid);
    size_t idx = m ? (size_t)(m - rec->threads) : rec->nthreads;
    int stride = m && m->role == 1 ? rec->thread_main_ticks_stride : rec->thread_ticks_stride;
    if (seen[idx]++ % (uint32_t)stride != 0)
      continue;
    rec->thread_ticks = room_for_one_more(rec->thread_ticks, rec->nthread_ticks, &cap, 4096, sizeof *rec->thread_ticks);
    struct gw_thread_tick *k = &rec->thread_ticks[rec->nthread_ticks++];
    int state = sqlite3_column_int(s, 2), wait = sqlite3_column_int(s, 3);
    k->t_ns = t;
    k->tid = (int32_t)tid;
    k->state = (uint8_t)(state >= 0 && state <= 5 ? state : 0); /* enum gw_thread_state; else unknown */
    k->wait = (uint8_t)(wait >= 0 && wait <= 8 ? wait : 8);     /* enum gw_wait_kind; else other */
    int64_t nr = sqlite3_column_type(s, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 4);
    k->syscall = (int16_t)(nr >= 0 && nr < 32768 ? nr : -1);
    int64_t cpu = sqlite3_column_type(s, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 5);
    k->cpu_ns = cpu >= 0 ? cpu : -1;
    if (rec->nthread_ticks > 1 && k[-1].t_ns > t)
      sorted = 0;
  }
  sqlite3_finalize(s);
  free(seen);
  if (!sorted)
    qsort(rec->thread_ticks, rec->nthread_ticks, sizeof *rec->thread_ticks, thread_tick_cmp);
}

static double meta_number(sqlite3 *db, const char *key) {
  sqlite3_stmt *s;
  double v = 0;
  if (!prepare_from(db, "meta", "SELECT value FROM meta WHERE key = ?", &s))
    return 0;
  sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
    v = sqlite3_column_double(s, 0);
  sqlite3_finalize(s);
  return isfinite(v) && v > 0 && v < 1e6 ? v : 0;
}

/* The hook's stack samples and their frames (tables py_sample, py_frame,
 * schema 2): none in older recordings. */
static void load_py_samples(sqlite3 *db, struct gw_recording *rec) {
  rec->py_sampling_hz = meta_number(db, "py_sampling_hz");
  if (!gw_store_table_exists(db, "py_sample") || !gw_store_table_exists(db, "py_frame"))
    return;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT id, file, line, func FROM py_frame ORDER BY id", -1, &s, NULL) == SQLITE_OK) {
    size_t cap = 0;
    while (next_row(s)) {
      int64_t id = sqlite3_column_int64(s, 0);
      if (id < 0 || id > INT32_MAX)
        continue;
      rec->py_frames = room_for_one_more(rec->py_frames, rec->npy_frames, &cap, 64, sizeof *rec->py_frames);
      struct gw_py_frame_info *fr = &rec->py_frames[rec->npy_frames++];
      fr->id = (int32_t)id;
      int64_t line = sqlite3_column_type(s, 2) == SQLITE_INTEGER ? sqlite3_column_int64(s, 2) : -1;
      fr->line = line >= 0 && line <= INT32_MAX ? (int)line : -1;
      const unsigned char *file = sqlite3_column_text(s, 1);
      size_t len = file ? strlen((const char *)file) : 0;
      /* the end of a long path names the file */
      gw_strlcpy(fr->file, file ? (const char *)file + (len >= sizeof fr->file ? len - (sizeof fr->file - 1) : 0) : "",
                 sizeof fr->file);
      col_text(s, 3, fr->func, sizeof fr->func);
    }
    sqlite3_finalize(s);
  }
  int64_t total = count_of(db, "SELECT max(rowid) FROM py_sample"); /* -1 (unreadable) keeps every row */
  int64_t every = total > GW_PY_TICKS_MAX ? (total + GW_PY_TICKS_MAX - 1) / GW_PY_TICKS_MAX : 1;
  if (sqlite3_prepare_v2(db, "SELECT t_ns, pid, tid, activity, frame FROM py_sample ORDER BY t_ns", -1, &s, NULL) !=
      SQLITE_OK)
    return;
  int64_t pids[PY_PIDS_COUNTED + 1], seen[PY_PIDS_COUNTED + 1];
  int npids = 0;
  size_t cap = 0;
  while (next_row(s)) {
    int64_t t = col_int(s, 0), pid = col_int(s, 1), tid = col_int(s, 2);
    int64_t activity = col_int(s, 3);
    if (!time_ok(t) || pid <= 0 || pid > INT32_MAX || tid <= 0 || tid > INT32_MAX || activity < 0 ||
        activity >= GW_PYACT_COUNT)
      continue;
    if (every > 1) {
      int k = 0;
      while (k < npids && pids[k] != pid)
        k++;
      if (k == npids && npids < PY_PIDS_COUNTED + 1) {
        pids[npids] = pid;
        seen[npids++] = 0;
      }
      if (k == PY_PIDS_COUNTED + 1)
        k = PY_PIDS_COUNTED; /* past the table: the last counter */
      if (seen[k]++ % every != 0)
        continue;
    }
    rec->py_ticks = room_for_one_more(rec->py_ticks, rec->npy_ticks, &cap, 1024, sizeof *rec->py_ticks);
    int64_t frame = sqlite3_column_type(s, 4) == SQLITE_INTEGER ? sqlite3_column_int64(s, 4) : -1;
    rec->py_ticks[rec->npy_ticks++] =
        (struct gw_py_tick){.t_ns = t,
                            .pid = (int32_t)pid,
                            .tid = (int32_t)tid,
                            .activity = (uint8_t)activity,
                            .frame = frame >= 0 && frame <= INT32_MAX ? (int32_t)frame : -1};
  }
  sqlite3_finalize(s);
  rec->py_sampling_hz /= (double)every;
}

/* The traced kernels, NCCL ones apart; returns how many were kept. */
static size_t load_kernels(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  size_t kept = 0;
  if (!prepare_from(db, "kernel",
                    "SELECT device, start_ns, end_ns, nccl FROM kernel"
                    " WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL",
                    &s))
    return 0;
  while (next_row(s)) {
    struct gw_gpu_series *g = gpu_by_id(rec, sqlite3_column_int(s, 0));
    if (!g || !time_ok(col_int(s, 1)) || !time_ok(col_int(s, 2)))
      continue;
    int is_nccl = sqlite3_column_type(s, 3) != SQLITE_NULL && sqlite3_column_int(s, 3) != 0;
    if (is_nccl)
      push_iv(&g->nccl, &g->nnccl, sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2));
    else
      push_iv(&g->kernels, &g->nkernels, sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2));
    kept++;
  }
  sqlite3_finalize(s);
  return kept;
}

/* The traced copies: host-to-device apart (copy_kind 1, CUPTI's numbering),
 * the others with the busy time. */
static void load_copies(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (prepare_from(db, "memcpy",
                   "SELECT device, start_ns, end_ns, copy_kind FROM memcpy"
                   " WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL",
                   &s)) {
    while (next_row(s)) {
      struct gw_gpu_series *g = gpu_by_id(rec, sqlite3_column_int(s, 0));
      if (!g || !time_ok(col_int(s, 1)) || !time_ok(col_int(s, 2)))
        continue;
      if (sqlite3_column_int(s, 3) == 1)
        push_iv(&g->h2d, &g->nh2d, sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2));
      else
        push_iv(&g->copies, &g->ncopies, sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2));
    }
    sqlite3_finalize(s);
  }
}

/* Tracer tables (lib/store/store_trace.c, optional): kernel(device,
 * start_ns, end_ns, nccl) and memcpy(device, start_ns, end_ns, copy_kind)
 * with copy_kind 1 = host to device (CUPTI's numbering). Records without
 * timestamps are skipped. A sampled trace covers only its windows, so the
 * busy union would undercount: such recordings keep the counter ledger, and
 * their intervals give the shares inside the windows (kernel_stats.c). */
static void load_timeline(sqlite3 *db, struct gw_recording *rec) {
  sqlite3_stmt *s;
  if (prepare_from(db, "trace_window", "SELECT count(*) FROM trace_window WHERE mode = 'sampled'", &s)) {
    rec->timeline_sampled = next_row(s) && sqlite3_column_int64(s, 0) > 0;
    sqlite3_finalize(s);
  }
  if (rec->timeline_sampled) {
    load_windows(db, rec);
    if (rec->nwindows)
      load_kernels(db, rec);
    load_copies(db, rec);
    return;
  }
  rec->has_timeline = load_kernels(db, rec) > 0;
  if (rec->has_timeline)
    load_copies(db, rec);
}

gw_status gw_store_load_recording(struct gw_store *st, const struct gw_store_load_params *p, struct gw_recording **out,
                                  struct gw_err *err) {
  *out = NULL;
  sqlite3 *db = gw_store_db(st);
  struct gw_recording *rec = gw_xcalloc(1, sizeof *rec);
  gw_strlcpy(rec->path, gw_store_path(st), sizeof rec->path);
  gw_status rc;
  loading = st;
  if ((rc = load_run(db, rec, err)) || (rc = load_gpu_list(db, rec, err)))
    goto out;
  for (int i = 0; i < rec->ngpus; i++) {
    if ((rc = load_metric_table(db, rec, i, GW_TABLE_FAST, p->unkept_metrics, err)) ||
        (rc = load_metric_table(db, rec, i, GW_TABLE_SLOW, p->unkept_metrics, err)))
      goto out;
    if (p->gpu_loaded)
      p->gpu_loaded(&rec->gpus[i]);
  }
  if ((rc = load_host(db, p, &rec->host, err)) || (rc = load_events(db, rec, err)))
    goto out;
  load_timeline(db, rec);
  load_tracer_aside(db, rec);
  load_gpu_processes(db, rec);
  load_other_gpu_processes(db, rec);
  load_world_size(db, rec);
  load_python_hook(db, rec);
  load_step_flops(db, rec);
  load_py_samples(db, rec);
  load_host_api(db, rec);
  load_thread_meta(db, rec);
  load_thread_ticks(db, rec);
  rec->nnodes = 1;
  for (int i = 0; i < rec->ngpus; i++) {
    rec->gpus[i].node_gpu = rec->gpus[i].gpu;
    gw_strlcpy(rec->gpus[i].host, rec->hostname, sizeof rec->gpus[i].host);
  }
  if (gw_store_damage(st)) {
    gw_err_set(err, "%s: damaged recording: %s", gw_store_path(st), gw_store_damage(st));
    rc = GW_EINPUT;
  }
out:
  loading = NULL;
  if (rc) {
    gw_recording_free(rec);
    return rc;
  }
  *out = rec;
  return GW_OK;
}

void gw_recording_free(struct gw_recording *rec) {
  if (!rec)
    return;
  gw_store_close(rec->store);
  for (int i = 0; i < rec->ngpus; i++) {
    struct gw_gpu_series *g = &rec->gpus[i];
    int shared = 0, health_shared = 0; /* tick times another GPU holds too (load_metric_table) */
    for (int j = 0; j < i; j++) {
      shared |= rec->gpus[j].t_ns == g->t_ns;
      health_shared |= rec->gpus[j].ht_ns == g->ht_ns;
    }
    if (!shared)
      free(g->t_ns);
    if (!health_shared)
      free(g->ht_ns);
    for (int m = 0; m < GW_GPU_NMETRICS; m++) {
      gw_column_free(g->m[m]);
      gw_column_free(g->h[m]);
    }
    free(g->kernels);
    free(g->nccl);
    free(g->h2d);
    free(g->copies);
    free(g->api);
    free(g->syncs);
    free(g->kstats);
  }
  free(rec->gpus);
  for (int i = 0; i < rec->command_argc; i++)
    free(rec->command_argv[i]);
  free(rec->command_argv);
  struct gw_host_series *h = &rec->host;
  double *cols[] = {h->cpu_busy_pct,         h->iowait_pct,    h->on_battery,         h->main_cpu_pct,
                    h->main_threads_running, h->workers,       h->worker_cpu_max_pct, h->workers_saturated,
                    h->disk_util_max_pct,    h->disk_read_bps, h->disk_write_bps,     h->launch_cpu_pct,
                    h->main_thread_cpu_pct};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    free(cols[i]);
  free(h->t_ns);
  free(rec->events);
  gw_text_pool_clear(&rec->texts);
  free(rec->steps);
  free(rec->py_ticks);
  free(rec->py_frames);
  free(rec->windows);
  free(rec->nccl);
  free(rec->step_flops);
  free(rec->threads);
  free(rec->thread_ticks);
  free(rec);
}
